// Reading a snapshot's objects: blobs by id (one `cat-file --batch`) and a tree's full listing.

import { promises as fs } from 'node:fs';
import type { UncoveredPath } from '../checkpoint-store.js';
import { GitCallError, type GitPlace, runGit } from './git.js';
import type { TreeListing } from './modes.js';
import { decodePath, pathUnder, splitNulPaths } from './path-bytes.js';

/** Reads blobs by id with one `git cat-file --batch`. */
export async function readObjects(
  place: GitPlace,
  ids: readonly string[],
  signal?: AbortSignal,
): Promise<Map<string, Buffer>> {
  const contents = new Map<string, Buffer>();
  if (ids.length === 0) return contents;
  const input = `${ids.join('\n')}\n`;
  const output = (await runGit(place, ['cat-file', '--batch'], { input, signal })).stdout;
  let offset = 0;
  while (offset < output.length) {
    const newline = output.indexOf(10, offset);
    if (newline < 0) break;
    const [id, type, size] = output.subarray(offset, newline).toString('utf8').split(' ');
    if (type === 'missing' || !id || size === undefined) throw new Error(`object ${id} is missing`);
    const length = Number(size);
    contents.set(id, output.subarray(newline + 1, newline + 1 + length));
    offset = newline + 1 + length + 1;
  }
  return contents;
}

/** Every entry (files, links, folders) of snapshot `id`, by exact path. */
export async function listTree(
  place: GitPlace,
  id: string,
  signal?: AbortSignal,
): Promise<TreeListing> {
  const args = ['ls-tree', '-r', '-t', '-z', '--full-tree', id];
  const fields = splitNulPaths((await runGit(place, args, { signal })).stdout);
  const listing: TreeListing = new Map();
  for (const field of fields) {
    const tab = field.indexOf('\t');
    const [mode, , objectId] = field.slice(0, tab).split(' ');
    if (mode && objectId) listing.set(field.slice(tab + 1), { mode, id: objectId });
  }
  return listing;
}

async function listed(place: GitPlace, args: string[], signal?: AbortSignal): Promise<string[]> {
  try {
    return splitNulPaths((await runGit(place, args, { signal })).stdout);
  } catch (error) {
    if (error instanceof GitCallError) return [];
    throw error;
  }
}

/**
 * What the store's index (just refreshed by a checkpoint) does not cover: files left out for
 * size (`overCap`), paths a `.gitignore` excludes (folders collapsed), nested repositories
 * (gitlinks, or folders with a `.git` git would not stage) and files that could not be staged.
 */
export async function listUncovered(
  place: GitPlace,
  overCap: readonly string[],
  signal?: AbortSignal,
): Promise<UncoveredPath[]> {
  const plain = { ...place };
  delete plain.excludesFile;
  const [ignored, stage, rest] = await Promise.all([
    listed(plain, ['ls-files', '-z', '-o', '-i', '--exclude-standard', '--directory'], signal),
    listed(place, ['ls-files', '-z', '-s'], signal),
    listed(place, ['ls-files', '-z', '-o', '--exclude-standard', '--directory'], signal),
  ]);
  const found: UncoveredPath[] = overCap.map((path) => ({ path, reason: 'over-size-cap' }));
  const size = new Set(overCap);
  for (const path of ignored)
    if (!size.has(path) && path !== '.git/') found.push({ path, reason: 'ignored' });
  for (const entry of stage) {
    if (!entry.startsWith('160000 ')) continue;
    found.push({ path: `${entry.slice(entry.indexOf('\t') + 1)}/`, reason: 'nested-repository' });
  }
  for (const path of rest) {
    if (size.has(path)) continue;
    const nested = path.endsWith('/') ? await nestedRepositories(place.workTree, path) : [];
    if (nested.length === 0) found.push({ path, reason: 'unreadable' });
    for (const inner of nested) found.push({ path: inner, reason: 'nested-repository' });
  }
  return found;
}

/** Folders at or under `folder` (workspace-relative, ending in `/`) that hold a `.git`. */
async function nestedRepositories(root: string, folder: string, depth = 0): Promise<string[]> {
  const entries = await fs
    .readdir(pathUnder(root, folder.slice(0, -1)), { withFileTypes: true, encoding: 'buffer' })
    .catch(() => []);
  if (entries.some((entry) => entry.name.toString('latin1') === '.git')) return [folder];
  if (depth >= 6) return [];
  const found: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const inner = `${folder}${decodePath(entry.name)}/`;
    found.push(...(await nestedRepositories(root, inner, depth + 1)));
  }
  return found;
}
