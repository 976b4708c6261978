// Writes a restore into the workspace: removals first (deepest first, then empty folders), then
// files and links. Files are written to a temporary name and renamed, so a crash mid-restore
// leaves each file either old or new. No write follows a link out of the workspace.

import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { WorkspaceChange } from '../checkpoint-store.js';
import { decodePath, encodePath } from './path-bytes.js';

const EXECUTABLE = '100755';
const SYMLINK = '120000';
const FOLDER = '040000';

/** The bytes of an absolute name built from decoded strings (see path-bytes.ts). */
const at = (path: string): Buffer => encodePath(path);

function insideWorkspace(root: string, candidate: string): boolean {
  const inner = relative(root, candidate);
  return inner === '' || (!inner.startsWith('..') && !inner.startsWith(sep) && inner !== '..');
}

function assertSafePath(path: string): void {
  if (
    path === '' ||
    path.startsWith('/') ||
    path.split('/').some((part) => part === '..' || part === '.' || part === '.git')
  ) {
    throw new Error(`refusing unsafe snapshot path ${JSON.stringify(path)}`);
  }
}

async function lstatOrUndefined(path: string) {
  try {
    return await fs.lstat(at(path));
  } catch {
    return undefined;
  }
}

async function removeEntry(absolute: string): Promise<void> {
  const stats = await lstatOrUndefined(absolute);
  if (!stats) return;
  if (stats.isDirectory()) await fs.rm(at(absolute), { recursive: true, force: true });
  else await fs.unlink(at(absolute));
}

async function pruneEmptyParents(root: string, absolute: string): Promise<void> {
  let folder = dirname(absolute);
  while (folder !== root && insideWorkspace(root, folder)) {
    try {
      await fs.rmdir(at(folder));
    } catch {
      return;
    }
    folder = dirname(folder);
  }
}

/** Makes the parent folder of `absolute`, refusing when it resolves outside the workspace. */
async function prepareParent(root: string, realRoot: string, absolute: string): Promise<void> {
  const parent = dirname(absolute);
  const existing = await lstatOrUndefined(parent);
  if (existing && !existing.isDirectory() && !existing.isSymbolicLink())
    await fs.unlink(at(parent));
  await fs.mkdir(at(parent), { recursive: true });
  const real = decodePath(await fs.realpath(at(parent), { encoding: 'buffer' }));
  if (!insideWorkspace(realRoot, real)) {
    throw new Error(
      `refusing to write ${relative(root, absolute)}: its folder leads outside the workspace`,
    );
  }
}

function fileMode(target: string, current: number | undefined, exact?: number): number {
  if (exact !== undefined) return exact;
  const executable = target === EXECUTABLE;
  if (current === undefined) return executable ? 0o755 : 0o644;
  const permissions = current & 0o7777;
  return executable ? permissions | ((permissions & 0o444) >> 2) : permissions & ~0o111;
}

/**
 * Applies `changes` (from the workspace's state to the target's) under `root`. `contents` holds
 * the target's bytes for every change with an `after`, keyed by object id.
 */
export async function applyChanges(
  root: string,
  changes: readonly WorkspaceChange[],
  contents: ReadonlyMap<string, Buffer>,
): Promise<void> {
  for (const change of changes) assertSafePath(change.path);
  const realRoot = await fs.realpath(root);
  const removals = changes
    .filter((change) => change.after === undefined)
    .sort((a, b) => b.path.split('/').length - a.path.split('/').length);
  for (const change of removals) {
    const absolute = join(root, change.path);
    await removeEntry(absolute);
    await pruneEmptyParents(root, absolute);
  }
  for (const change of changes) {
    const after = change.after;
    if (!after) continue;
    const absolute = join(root, change.path);
    await prepareParent(root, realRoot, absolute);
    const current = await lstatOrUndefined(absolute);
    if (after.mode === FOLDER) continue;
    if (change.kind === 'mode' && current?.isFile() && after.mode !== SYMLINK) {
      await fs.chmod(at(absolute), fileMode(after.mode, current.mode, after.permissions));
      continue;
    }
    const bytes = contents.get(after.id);
    if (!bytes) throw new Error(`snapshot content ${after.id} of ${change.path} is missing`);
    if (current?.isDirectory()) await fs.rm(at(absolute), { recursive: true, force: true });
    if (after.mode === SYMLINK) {
      if (current) await fs.unlink(at(absolute)).catch(() => undefined);
      await fs.symlink(bytes, at(absolute));
      continue;
    }
    const temporary = join(dirname(absolute), `.${randomBytes(6).toString('hex')}.spine-restore`);
    await fs.writeFile(at(temporary), bytes, { mode: 0o600 });
    const mode = fileMode(
      after.mode,
      current?.isFile() ? current.mode : undefined,
      after.permissions,
    );
    await fs.chmod(at(temporary), mode);
    await fs.rename(at(temporary), at(absolute));
  }
  await applyFolderModes(root, changes);
}

/** Sets the permission bits of folders whose bits changed (deepest first, after all writes). */
async function applyFolderModes(root: string, changes: readonly WorkspaceChange[]): Promise<void> {
  const folders = changes
    .filter((change) => change.after?.mode === FOLDER && change.after.permissions !== undefined)
    .sort((a, b) => b.path.split('/').length - a.path.split('/').length);
  for (const change of folders) {
    const absolute = join(root, change.path);
    if ((await lstatOrUndefined(absolute))?.isDirectory())
      await fs.chmod(at(absolute), change.after?.permissions as number);
  }
}
