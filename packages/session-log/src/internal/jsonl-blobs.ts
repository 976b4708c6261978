// The JSONL store's blob folder: `<dir>/<id>.blobs/<sha256>`, one file per blob, written to a
// temporary name, synced (unless fsync is `never`) and renamed into place before `put` returns,
// so an event appended after `put` never references a blob a crash could lose (the session's
// directory is synced too when the folder is new, so the folder's own entry survives).
import { dirname } from 'node:path';
import type { StoreBlobs } from '@spine/protocol';
import { SessionClosedError } from '../errors.js';
import type { FsyncPolicy } from '../types.js';
import {
  closeSync,
  fdatasyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  syncDirectory,
  writeSync,
} from './fs.js';
import { pathExists, storeFailure } from './fs-errors.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The blob folder beside a session file `<id>.jsonl`. */
export function blobFolderOf(sessionPath: string): string {
  return `${sessionPath.replace(/\.jsonl$/, '')}.blobs`;
}

/** Blobs of one JSONL session; `writable` false refuses `put` (read-only open). */
export function createJsonlBlobs(options: {
  sessionId: string;
  sessionPath: string;
  fsync: FsyncPolicy;
  writable: () => boolean;
}): StoreBlobs {
  const folder = blobFolderOf(options.sessionPath);
  const known = new Set<string>();
  return {
    put(sha256: string, bytes: Uint8Array): void {
      if (!SHA256_HEX.test(sha256)) throw new TypeError(`not a SHA-256 hex digest: ${sha256}`);
      if (!options.writable()) {
        throw new SessionClosedError({ sessionId: options.sessionId, reason: 'read-only' });
      }
      if (known.has(sha256)) return;
      const path = `${folder}/${sha256}`;
      const action = `store a blob of session ${options.sessionId}`;
      if (pathExists(path, action)) {
        known.add(sha256);
        return;
      }
      const temporary = `${path}.${process.pid}.tmp`;
      try {
        const created = mkdirSync(folder, { recursive: true });
        try {
          const fd = openSync(temporary, 'w');
          try {
            writeSync(fd, bytes);
            if (options.fsync !== 'never') fdatasyncSync(fd);
          } finally {
            closeSync(fd);
          }
          renameSync(temporary, path);
        } finally {
          rmSync(temporary, { force: true });
        }
        if (options.fsync !== 'never') {
          syncDirectory(folder);
          if (created !== undefined) syncDirectory(dirname(folder));
        }
      } catch (error) {
        throw storeFailure(error, action, path);
      }
      known.add(sha256);
    },
    get(sha256: string): Uint8Array | undefined {
      if (!SHA256_HEX.test(sha256)) return undefined;
      try {
        return readFileSync(`${folder}/${sha256}`);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw storeFailure(error, `read a blob of session ${options.sessionId}`);
      }
    },
  };
}
