import type { Dirent, Stats } from 'node:fs';
import { promises as nodeFsPromises } from 'node:fs';

/**
 * The file-system operations the workspace tools use. The default is `node:fs/promises`; a
 * sandbox backend or a test may pass its own (style rule 15).
 */
export interface WorkspaceFs {
  /** Reads a whole file. */
  readFile(path: string): Promise<Buffer>;
  /** Writes a whole file. */
  writeFile(path: string, data: string | Uint8Array, options?: { mode?: number }): Promise<void>;
  /** Renames atomically within one file system. */
  rename(from: string, to: string): Promise<void>;
  /** Removes a file. */
  unlink(path: string): Promise<void>;
  /** Creates a directory and its parents. */
  mkdir(path: string, options: { recursive: true }): Promise<unknown>;
  /** Stats, following symlinks. */
  stat(path: string): Promise<Stats>;
  /** Stats, not following a final symlink. */
  lstat(path: string): Promise<Stats>;
  /** Resolves every symlink. */
  realpath(path: string): Promise<string>;
  /** Lists a directory with entry types. */
  readdir(path: string, options: { withFileTypes: true }): Promise<Dirent[]>;
}

/** The default {@link WorkspaceFs}: the real file system through `node:fs/promises`. */
export const nodeWorkspaceFs: WorkspaceFs = {
  readFile: (path) => nodeFsPromises.readFile(path),
  writeFile: (path, data, options) => nodeFsPromises.writeFile(path, data, options),
  rename: (from, to) => nodeFsPromises.rename(from, to),
  unlink: (path) => nodeFsPromises.unlink(path),
  mkdir: (path, options) => nodeFsPromises.mkdir(path, options),
  stat: (path) => nodeFsPromises.stat(path),
  lstat: (path) => nodeFsPromises.lstat(path),
  realpath: (path) => nodeFsPromises.realpath(path),
  readdir: (path, options) => nodeFsPromises.readdir(path, options),
};
