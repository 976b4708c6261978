// Permission bits (all 12: setuid, setgid, sticky, rwx ×3) of a snapshot's files and folders.
// Git keeps only "executable or not"; the store keeps the rest in the snapshot's commit message,
// listing only entries that differ from the default (0755 for folders and files with the owner's
// x bit, 0644 for other files), so a workspace made under umask 022 stores nothing extra.

import { lstatSync } from 'node:fs';
import type { WorkspaceChange } from '../checkpoint-store.js';
import { pathUnder } from './path-bytes.js';

/** Non-default permission bits of a snapshot: workspace-relative path → mode & 0o7777. */
export interface Modes {
  files: Record<string, number>;
  dirs: Record<string, number>;
}

/** An empty {@link Modes} (a snapshot made before modes were recorded). */
export function noModes(): Modes {
  return { files: {}, dirs: {} };
}

/** The default permission bits of a file (by its owner x bit) or folder. */
export function defaultPermissions(kind: 'file' | 'dir', executable: boolean): number {
  return kind === 'dir' || executable ? 0o755 : 0o644;
}

/** The folders holding `paths` (every ancestor, workspace root excluded). */
function folders(paths: readonly string[]): Set<string> {
  const found = new Set<string>();
  for (const path of paths) {
    for (let slash = path.lastIndexOf('/'); slash > 0; slash = path.lastIndexOf('/', slash - 1)) {
      const folder = path.slice(0, slash);
      if (found.has(folder)) break;
      found.add(folder);
    }
  }
  return found;
}

/** Reads the permission bits of `files` (regular files; links skipped) and their folders. */
export function readModes(root: string, files: readonly string[]): Modes {
  const modes = noModes();
  for (const path of files) {
    const stats = lstatSync(pathUnder(root, path), { throwIfNoEntry: false });
    if (!stats?.isFile()) continue;
    const bits = stats.mode & 0o7777;
    if (bits !== defaultPermissions('file', (bits & 0o100) !== 0)) modes.files[path] = bits;
  }
  for (const folder of folders(files)) {
    const stats = lstatSync(pathUnder(root, folder), { throwIfNoEntry: false });
    if (!stats?.isDirectory()) continue;
    const bits = stats.mode & 0o7777;
    if (bits !== 0o755) modes.dirs[folder] = bits;
  }
  return modes;
}

/** The commit message that carries `modes` (one JSON line; empty object lists dropped). */
export function modesMessage(modes: Modes): string {
  const body: Partial<Modes> = {};
  if (Object.keys(modes.files).length > 0) body.files = modes.files;
  if (Object.keys(modes.dirs).length > 0) body.dirs = modes.dirs;
  return `spine checkpoint\n\n${JSON.stringify(body)}\n`;
}

/** The {@link Modes} in a snapshot commit's raw text (none when it holds no such line). */
export function parseModes(commitText: string): Modes {
  const line = commitText
    .split('\n')
    .reverse()
    .find((text) => text.startsWith('{'));
  if (!line) return noModes();
  const parsed = JSON.parse(line) as Partial<Modes>;
  return { files: parsed.files ?? {}, dirs: parsed.dirs ?? {} };
}

/** A tree listing: path → git mode and object id (files, links and folders). */
export type TreeListing = Map<string, { mode: string; id: string }>;

function effective(modes: Modes, path: string, gitMode: string): number {
  if (gitMode === '040000') return modes.dirs[path] ?? 0o755;
  return modes.files[path] ?? defaultPermissions('file', gitMode === '100755');
}

/**
 * Adds permission bits to `changes` (their `before`/`after`) and appends a `mode` change for each
 * file or folder present in both snapshots whose bits alone differ. `listings` gives the two
 * snapshots' trees; it is called only when some entry has non-default bits.
 */
export async function withPermissions(
  changes: WorkspaceChange[],
  from: Modes,
  to: Modes,
  listings: () => Promise<[TreeListing, TreeListing]>,
): Promise<WorkspaceChange[]> {
  const keys = new Set([
    ...Object.keys(from.files),
    ...Object.keys(to.files),
    ...Object.keys(from.dirs),
    ...Object.keys(to.dirs),
  ]);
  for (const change of changes) {
    if (change.before && change.before.mode !== '120000')
      change.before.permissions = effective(from, change.path, change.before.mode);
    if (change.after && change.after.mode !== '120000')
      change.after.permissions = effective(to, change.path, change.after.mode);
  }
  if (keys.size === 0) return changes;
  const listed = new Set(changes.map((change) => change.path));
  const [fromTree, toTree] = await listings();
  const extra: WorkspaceChange[] = [];
  for (const path of [...keys].sort()) {
    if (listed.has(path)) continue;
    const before = fromTree.get(path);
    const after = toTree.get(path);
    if (!before || !after || before.mode !== after.mode || after.mode === '120000') continue;
    const was = effective(from, path, before.mode);
    const now = effective(to, path, after.mode);
    if (was === now) continue;
    extra.push({
      path,
      kind: 'mode',
      before: { ...before, permissions: was },
      after: { ...after, permissions: now },
    });
  }
  return [...changes, ...extra];
}
