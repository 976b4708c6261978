import type { Dirent, Stats } from 'node:fs';
import { promises as nodeFsPromises } from 'node:fs';

/**
 * The file-system operations the workspace tools use. The default is `node:fs/promises`; a
 * sandbox backend or a test may pass its own (style rule 15).
 */
export interface WorkspaceFs {
  readFile(path: string): Promise<Buffer>;
  writeFile(path: string, data: string | Uint8Array, options?: { mode?: number }): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  mkdir(path: string, options: { recursive: true }): Promise<unknown>;
  stat(path: string): Promise<Stats>;
  lstat(path: string): Promise<Stats>;
  realpath(path: string): Promise<string>;
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
