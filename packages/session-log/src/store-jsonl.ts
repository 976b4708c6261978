import { join } from 'node:path';
import type {
  OpenedSession,
  SessionEvent,
  SessionHeaderBody,
  SessionRange,
  SessionStore,
  SessionStoreOpenOptions,
  SessionSummary,
  StoredSnapshot,
} from '@spine/protocol';
import {
  InvalidEventError,
  SessionCorruptError,
  SessionExistsError,
  SessionNotFoundError,
} from './errors.js';
import { sealText } from './internal/chain.js';
import { acquireFileLock } from './internal/file-lock.js';
import {
  closeSync,
  fdatasyncSync,
  linkSync,
  mkdirSync,
  openSync,
  rmSync,
  syncDirectory,
  truncateSync,
  writeSync,
} from './internal/fs.js';
import {
  pathExists,
  reportingFailures,
  storeFailure,
  withStoreFailures,
} from './internal/fs-errors.js';
import { SAFE_ID } from './internal/jsonl-files.js';
import {
  readJsonlBatches,
  readJsonlEvents,
  readJsonlRange,
  scanJsonlBatches,
} from './internal/jsonl-read.js';
import {
  anchorFor,
  chainBefore,
  readSnapshotFile,
  readSnapshotHead,
} from './internal/jsonl-snapshot.js';
import { JsonlWriter } from './internal/jsonl-writer.js';
import { checkRange } from './internal/range.js';
import * as hooks from './internal/store-hooks.js';
import { listJsonlSessions } from './store-jsonl-list.js';
import type { FsyncPolicy } from './types.js';
import { verifyJsonlLogInChunks } from './verify-jsonl.js';

/** Said when the lock of a session opened for writing cannot be taken. */
const READ_ONLY_HINT = ' (open it with { readOnly: true } to read it without a lock)';

/** Bytes `verifyJsonlLog` reads at a time (the parent of a fork is verified first). */
const VERIFY_CHUNK_BYTES = 8 * 1024 * 1024;

/** Options of {@link createJsonlStore}. */
export interface JsonlStoreOptions {
  /** Directory holding one `<id>.jsonl` file (and `<id>.jsonl.lock` while open) per session. */
  dir: string;
  /**
   * `always`: every append is synced before it returns. `per-turn` (default): synced at
   * `checkpoint()`, `flush()` and `close()`. `never`: synced only on `flush()`.
   */
  fsync?: FsyncPolicy;
  /** With buffered policies, write the group once this many bytes are pending (default 64 KiB, at most 1 MiB). */
  flushBytes?: number;
  /** With buffered policies, write pending lines after this many ms (default 20). */
  flushIntervalMs?: number;
  /**
   * Event types whose `append()` writes every pending line to the file before it returns
   * (default `['tool/started', 'request/context']`: the tool runs right after the first, and
   * crash recovery must know it may have run; the model request is sent right after the second,
   * the last event it is rebuilt from, and the log must hold every request a provider saw). The
   * lines reach the operating system, so they survive this process being killed; when they reach
   * the disk stays with `fsync`.
   */
  durableTypes?: readonly string[];
  /**
   * Seal every line with the tamper-evident chain (default true): the line's last key `h` is a
   * SHA-256 chain value over the previous line's and this line's bytes (see `verifyJsonlLog`).
   */
  chain?: boolean;
}

function pathFor(dir: string, id: string): string {
  if (!SAFE_ID.test(id)) {
    throw new InvalidEventError({
      type: 'session/header',
      reason: `session id ${JSON.stringify(id)} is not a safe file name; use letters, digits, ".", "_" and "-"`,
    });
  }
  return join(dir, `${id}.jsonl`);
}

/**
 * Creates the default store: one JSONL file per session (`${dir}/${id}.jsonl`, one event per
 * line), a single-writer lock file per session with stale-lock recovery, a configurable fsync
 * policy, and a torn last line truncated on open (reported through `repaired`).
 *
 * Only a missing file (ENOENT, or ENOTDIR: the folder's path runs through a file) is a missing
 * session: `exists` answers false and `open` throws `SessionNotFoundError`. Any other refusal of
 * the file system while looking for, creating, locking, opening, reading or writing a session's
 * files (EACCES, EPERM, EROFS, ELOOP, ENOSPC, EIO…) throws a `StoreUnavailableError` (code
 * `STORE_UNAVAILABLE`) naming the path and what to do, with the operating system's code in
 * `systemCode` and its error as `cause`; `exists` throws it too rather than answer false.
 *
 * @example
 * ```ts
 * const store = createJsonlStore({ dir: '.spine/sessions', fsync: 'per-turn' });
 * const session = await Session.create({ store, title: 'fix the build' });
 * ```
 */
export function createJsonlStore(options: JsonlStoreOptions): SessionStore {
  const dir = options.dir;
  const fsync: FsyncPolicy = options.fsync ?? 'per-turn';
  const flushBytes = options.flushBytes ?? 64 * 1024;
  const flushIntervalMs = options.flushIntervalMs ?? 20;
  const chain = options.chain ?? true;
  const durableTypes: ReadonlySet<string> = new Set(
    options.durableTypes ?? ['tool/started', 'request/context'],
  );
  const writer = (init: {
    sessionId: string;
    path: string;
    fd: number;
    events: SessionEvent[];
    lastSeq: number;
    chainHead: string;
    repaired?: OpenedSession['repaired'];
    readOnly: boolean;
    release: () => void;
  }): JsonlWriter =>
    new JsonlWriter({
      ...init,
      repaired: init.repaired,
      fsync,
      flushBytes,
      flushIntervalMs,
      durableTypes,
      chain,
    });

  const store: SessionStore & hooks.StoreHooks = {
    specificationVersion: 1,
    kind: 'jsonl',
    async create(header: SessionEvent): Promise<OpenedSession> {
      const id = (header.body as SessionHeaderBody).sessionId;
      const path = pathFor(dir, id);
      const action = `create session ${id} in ${dir}`;
      withStoreFailures(action, () => mkdirSync(dir, { recursive: true }));
      if (pathExists(path, action)) throw new SessionExistsError({ sessionId: id });
      const release = acquireFileLock(`${path}.lock`, id, action);
      // The header goes to a temporary file first and is linked into place, so a crash during
      // create leaves either no session or one with a complete header, never an empty file.
      const temporary = `${path}.${process.pid}.tmp`;
      let fd: number | undefined;
      const first = chain
        ? sealText(JSON.stringify(header), '')
        : { line: `${JSON.stringify(header)}\n`, head: '' };
      try {
        const tmpFd = openSync(temporary, 'w');
        try {
          writeSync(tmpFd, first.line);
          if (fsync !== 'never') fdatasyncSync(tmpFd);
        } finally {
          closeSync(tmpFd);
        }
        linkSync(temporary, path);
        fd = openSync(path, 'a');
        if (fsync !== 'never') syncDirectory(dir);
      } catch (error) {
        if (fd !== undefined) closeSync(fd);
        release();
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
          throw new SessionExistsError({ sessionId: id });
        }
        throw storeFailure(error, action);
      } finally {
        rmSync(temporary, { force: true });
      }
      return writer({
        sessionId: id,
        path,
        fd,
        events: [header],
        lastSeq: 1,
        chainHead: first.head,
        readOnly: false,
        release,
      });
    },

    async open(
      sessionId: string,
      openOptions: SessionStoreOpenOptions = {},
    ): Promise<OpenedSession> {
      if (!SAFE_ID.test(sessionId)) throw new SessionNotFoundError({ sessionId, where: dir });
      const path = pathFor(dir, sessionId);
      const action = `open session ${sessionId} in ${dir}`;
      if (!pathExists(path, action)) throw new SessionNotFoundError({ sessionId, where: dir });
      const readOnly = openOptions.readOnly ?? false;
      const release = readOnly
        ? () => {}
        : acquireFileLock(`${path}.lock`, sessionId, `${action} for writing${READ_ONLY_HINT}`);
      try {
        const fromSeq = openOptions.fromSeq ?? 1;
        const read = readJsonlEvents(path, { ...anchorFor(path, fromSeq), fromSeq });
        let repaired: OpenedSession['repaired'];
        if (read.validBytes < read.size && !readOnly) {
          truncateSync(path, read.validBytes);
          repaired = {
            reason: 'torn last line truncated',
            truncatedBytes: read.size - read.validBytes,
          };
        }
        const fd = openSync(path, readOnly ? 'r' : 'a');
        if (repaired) fdatasyncSync(fd);
        return writer({
          sessionId,
          path,
          fd,
          events: read.events,
          lastSeq: read.lastSeq,
          chainHead: read.events.length > 0 ? read.chainHead : chainBefore(path, read.validBytes),
          repaired,
          readOnly,
          release,
        });
      } catch (error) {
        release();
        throw storeFailure(error, action);
      }
    },

    async *readRange(sessionId: string, range: SessionRange): AsyncIterable<SessionEvent> {
      checkRange(range);
      if (!SAFE_ID.test(sessionId)) throw new SessionNotFoundError({ sessionId, where: dir });
      const path = pathFor(dir, sessionId);
      const action = `read session ${sessionId} in ${dir}`;
      if (!pathExists(path, action)) throw new SessionNotFoundError({ sessionId, where: dir });
      const anchor = withStoreFailures(action, () => anchorFor(path, range.fromSeq));
      yield* reportingFailures(
        readJsonlRange(path, {
          ...anchor,
          fromSeq: range.fromSeq,
          toSeq: range.toSeq,
          types: range.types ? new Set(range.types) : undefined,
          limit: range.limit,
        }),
        action,
      );
    },

    async readSnapshot(sessionId: string): Promise<StoredSnapshot | undefined> {
      if (!SAFE_ID.test(sessionId)) throw new SessionNotFoundError({ sessionId, where: dir });
      const path = pathFor(dir, sessionId);
      const action = `read the snapshot of session ${sessionId} in ${dir}`;
      if (!pathExists(path, action)) throw new SessionNotFoundError({ sessionId, where: dir });
      const snapshot = readSnapshotFile(path);
      return snapshot && { seq: snapshot.seq, data: snapshot.data };
    },

    [hooks.openStreaming](sessionId: string, { readOnly }): hooks.StreamingOpen {
      if (!SAFE_ID.test(sessionId)) throw new SessionNotFoundError({ sessionId, where: dir });
      const path = pathFor(dir, sessionId);
      const action = `open session ${sessionId} in ${dir}`;
      if (!pathExists(path, action)) throw new SessionNotFoundError({ sessionId, where: dir });
      const release = readOnly
        ? () => {}
        : acquireFileLock(`${path}.lock`, sessionId, `${action} for writing${READ_ONLY_HINT}`);
      const scan = { size: 0, position: 0, lastSeq: 0, chainHead: '' };
      return {
        batches: reportingFailures(scanJsonlBatches(path, scan), action),
        progress: scan,
        abort: release,
        finish: () => {
          try {
            const torn = scan.size - scan.position;
            if (torn > 0 && !readOnly) truncateSync(path, scan.position);
            const fd = openSync(path, readOnly ? 'r' : 'a');
            if (torn > 0 && !readOnly) fdatasyncSync(fd);
            return writer({
              sessionId,
              path,
              fd,
              events: [],
              lastSeq: scan.lastSeq,
              chainHead: scan.chainHead,
              readOnly,
              release,
              repaired:
                torn > 0 && !readOnly
                  ? { reason: 'torn last line truncated', truncatedBytes: torn }
                  : undefined,
            });
          } catch (error) {
            release();
            throw storeFailure(error, action);
          }
        },
      };
    },

    [hooks.readRangeBatches](sessionId: string, range: hooks.BatchRange): Iterable<SessionEvent[]> {
      checkRange(range);
      if (!SAFE_ID.test(sessionId)) throw new SessionNotFoundError({ sessionId, where: dir });
      const path = pathFor(dir, sessionId);
      const action = `read session ${sessionId} in ${dir}`;
      if (!pathExists(path, action)) throw new SessionNotFoundError({ sessionId, where: dir });
      const anchor = withStoreFailures(action, () => anchorFor(path, range.fromSeq));
      return reportingFailures(readJsonlBatches(path, { ...anchor, ...range }), action);
    },

    [hooks.forkAnchor](
      sessionId: string,
      atSeq: number,
    ): { start: string; end: string } | undefined {
      const path = pathFor(dir, sessionId);
      const values = new Map([
        [1, ''],
        [atSeq, ''],
      ]);
      const result = withStoreFailures(`verify session ${sessionId} in ${dir} before a fork`, () =>
        verifyJsonlLogInChunks(path, VERIFY_CHUNK_BYTES, values),
      );
      if (!result.ok && result.problem) {
        throw new SessionCorruptError({
          file: path,
          line: result.problem.line,
          reason: `${result.problem.message}; a fork would re-seal it, so it was not forked (spine verify ${sessionId} shows the problem)`,
        });
      }
      const start = values.get(1);
      const end = values.get(atSeq);
      return result.chainedFrom === 1 && start && end ? { start, end } : undefined;
    },

    [hooks.readSnapshotHead](sessionId: string, lines: number): StoredSnapshot | undefined {
      const snapshot = SAFE_ID.test(sessionId)
        ? readSnapshotHead(pathFor(dir, sessionId), lines)
        : undefined;
      return snapshot && { seq: snapshot.seq, data: snapshot.data };
    },

    async exists(sessionId: string): Promise<boolean> {
      if (!SAFE_ID.test(sessionId)) return false;
      return pathExists(pathFor(dir, sessionId), `look for session ${sessionId} in ${dir}`);
    },

    async list(listOptions: { limit?: number } = {}): Promise<SessionSummary[]> {
      // A file that is not an openable session (see listJsonlSessions' problems) is left out.
      return listJsonlSessions(dir, listOptions).summaries;
    },
  };
  return store;
}
