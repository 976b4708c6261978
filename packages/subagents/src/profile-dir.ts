// Reading profile files safely: a profile directory is written by whoever controls the project,
// so a name ending in `.md` may be a FIFO (reading it would block start-up), a socket, a device,
// a directory, a huge file or a symbolic link out of the project. Only regular files are read,
// opened without blocking and checked again on the open descriptor, with a size cap.

import { constants } from 'node:fs';
import { lstat, open, stat } from 'node:fs/promises';
import { InvalidProfileError } from './errors.js';

/** The largest profile file read, in bytes (256 KiB). */
export const MAX_PROFILE_BYTES = 256 * 1024;

/** How symbolic links among profile files are treated. */
export type ProfileSymlinks = 'follow' | 'refuse';

type FileKind = 'file' | 'directory' | 'symlink' | 'FIFO' | 'socket' | 'device' | 'other';

function kindOf(stats: import('node:fs').Stats): FileKind {
  if (stats.isFile()) return 'file';
  if (stats.isDirectory()) return 'directory';
  if (stats.isSymbolicLink()) return 'symlink';
  if (stats.isFIFO()) return 'FIFO';
  if (stats.isSocket()) return 'socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'device';
  return 'other';
}

const KIND_TEXT: Record<Exclude<FileKind, 'file'>, string> = {
  directory: 'a directory',
  symlink: 'a symbolic link',
  FIFO: 'a FIFO (named pipe)',
  socket: 'a socket',
  device: 'a device',
  other: 'not a regular file',
};

function refuse(path: string, reason: string, cause?: unknown): never {
  throw new InvalidProfileError({
    path,
    key: 'file',
    reason,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The reason an I/O error gives, in words. */
function ioReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'cannot be read (permission denied)';
  if (code === 'ELOOP') return 'is a symbolic link (refused here)';
  if (code === 'ENOENT') return 'disappeared while it was read';
  return `cannot be read (${code ?? (error instanceof Error ? error.message : String(error))})`;
}

/**
 * Reads one profile file as UTF-8 text when it is a regular file of at most
 * {@link MAX_PROFILE_BYTES}: checked with `lstat` (a symbolic link is refused, or followed with
 * `symlinks: 'follow'`), opened with `O_NONBLOCK` (a FIFO never blocks) and `O_NOFOLLOW` when
 * links are refused, and checked again with `fstat` on the open descriptor (the file cannot be
 * swapped between the check and the read).
 *
 * @throws an {@link InvalidProfileError} (key `file`) naming the file and why it was not read.
 */
export async function readProfileText(path: string, symlinks: ProfileSymlinks): Promise<string> {
  let stats: import('node:fs').Stats;
  try {
    stats = await lstat(path);
    if (stats.isSymbolicLink()) {
      if (symlinks === 'refuse')
        refuse(path, 'is a symbolic link; profiles of a project must be regular files in it');
      stats = await stat(path);
    }
  } catch (error) {
    if (error instanceof InvalidProfileError) throw error;
    refuse(path, ioReason(error), error);
  }
  checkStats(path, stats);
  const flags =
    constants.O_RDONLY | constants.O_NONBLOCK | (symlinks === 'refuse' ? constants.O_NOFOLLOW : 0);
  let handle: import('node:fs/promises').FileHandle;
  try {
    handle = await open(path, flags);
  } catch (error) {
    refuse(path, ioReason(error), error);
  }
  try {
    const opened = await handle.stat();
    checkStats(path, opened);
    if (opened.ino !== stats.ino || opened.dev !== stats.dev)
      refuse(path, 'was replaced while it was read');
    const buffer = Buffer.alloc(MAX_PROFILE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_PROFILE_BYTES) refuse(path, `is larger than ${MAX_PROFILE_BYTES} bytes`);
    return buffer.subarray(0, length).toString('utf8');
  } catch (error) {
    if (error instanceof InvalidProfileError) throw error;
    refuse(path, ioReason(error), error);
  } finally {
    await handle.close();
  }
}

/** Refuses anything but a regular file within the size cap. */
function checkStats(path: string, stats: import('node:fs').Stats): void {
  const kind = kindOf(stats);
  if (kind !== 'file') refuse(path, `is ${KIND_TEXT[kind]}, not a regular file`);
  if (stats.size > MAX_PROFILE_BYTES) refuse(path, `is larger than ${MAX_PROFILE_BYTES} bytes`);
}
