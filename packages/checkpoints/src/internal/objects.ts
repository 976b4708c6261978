// Reading a snapshot's objects: blobs by id (one `cat-file --batch`) and a tree's full listing.

import { type GitPlace, runGit } from './git.js';
import type { TreeListing } from './modes.js';
import { splitNulPaths } from './path-bytes.js';

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
