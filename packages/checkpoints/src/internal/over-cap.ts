// The files a session's store leaves out for their size: kept as a NUL-separated list beside the
// store and written out fresh as the store's exclude file before each checkpoint (a file that
// shrank under the cap, or was deleted, is no longer excluded). A name holding CR or LF is never
// written as a pattern (one line per pattern cannot hold it); it stays in the list, is staged and
// dropped again at each checkpoint, and is reported as not restorable like every other entry.

import { promises as fs } from 'node:fs';
import { encodePath, nulInput, pathUnder, splitNulPaths } from './path-bytes.js';
import { literalIgnorePattern } from './tree-diff.js';

/** The over-cap list of one store (one session). */
export class OverCapList {
  readonly #root: string;
  readonly #listFile: string;
  readonly #excludeFile: string;
  readonly #maxBytes: number;
  #paths = new Set<string>();

  constructor(options: { root: string; listFile: string; excludeFile: string; maxBytes: number }) {
    this.#root = options.root;
    this.#listFile = options.listFile;
    this.#excludeFile = options.excludeFile;
    this.#maxBytes = options.maxBytes;
  }

  /** The paths now left out, sorted. */
  get paths(): string[] {
    return [...this.#paths].sort();
  }

  /** Reads the saved list (none when missing). */
  async load(): Promise<void> {
    const saved = await fs.readFile(this.#listFile).catch(() => Buffer.alloc(0));
    this.#paths = new Set(splitNulPaths(saved));
  }

  /** True when `path` is a regular file over the cap. */
  async isOver(path: string): Promise<boolean> {
    const stats = await fs.lstat(pathUnder(this.#root, path)).catch(() => undefined);
    return stats?.isFile() === true && stats.size > this.#maxBytes;
  }

  /** Keeps only entries still over the cap, adds `more`, and writes list and exclude file. */
  async refresh(more: readonly string[] = []): Promise<void> {
    const kept = new Set<string>();
    for (const path of [...this.#paths, ...more]) if (await this.isOver(path)) kept.add(path);
    this.#paths = kept;
    const lines = this.paths
      .filter((path) => !/[\r\n]/.test(path))
      .map((path) => Buffer.concat([encodePath(literalIgnorePattern(path)), Buffer.of(10)]));
    await Promise.all([
      fs.writeFile(this.#excludeFile, Buffer.concat(lines)),
      fs.writeFile(this.#listFile, nulInput(this.paths)),
    ]);
  }
}
