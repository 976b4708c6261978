import { execFile } from 'node:child_process';
import { closeSync, fstatSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const BLOCK = 4096;

/**
 * A job's output on disk, one file per job. The job writes it directly (its stdout and stderr are
 * the file, so capturing costs this process nothing), or, when the sandbox can only give pipes,
 * this process appends what it reads. Once more than `retainBytes` are kept, the oldest part is
 * released with `fallocate --punch-hole`: the file stays the same length (offsets count every
 * byte the job wrote, so a range read of released output says so) but holds at most about
 * `retainBytes` of disk.
 */
export class JobOutputFile {
  readonly path: string;
  readonly #retainBytes: number;
  #fd: number | undefined;
  #closedSize = 0;
  #firstKept = 0;
  #trimming: Promise<void> | undefined;

  constructor(options: { dir: string; id: string; retainBytes: number }) {
    this.path = join(options.dir, `${options.id}.out`);
    this.#retainBytes = Math.max(4 * BLOCK, options.retainBytes);
    this.#fd = openSync(this.path, 'w+', 0o600);
  }

  /** A new descriptor appending to the file, for the job's stdout and stderr; the caller closes it. */
  openForWriter(): number {
    return openSync(this.path, 'a');
  }

  /** Bytes the job wrote in all. */
  get size(): number {
    return this.#fd === undefined ? this.#closedSize : fstatSync(this.#fd).size;
  }

  /** Offset of the oldest byte still kept. */
  get firstKept(): number {
    return this.#firstKept;
  }

  /** Appends a chunk read from the job's pipes (synchronously: the chunk is never held). */
  append(chunk: Buffer): void {
    if (this.#fd === undefined) return;
    writeSync(this.#fd, chunk, 0, chunk.length, this.size);
  }

  /** Reads `length` bytes from `offset` (clamped to what is kept). */
  read(offset: number, length: number): { start: number; bytes: Buffer } {
    const start = Math.max(offset, this.#firstKept);
    const end = Math.min(this.size, offset + length);
    if (end <= start) return { start, bytes: Buffer.alloc(0) };
    const out = Buffer.alloc(end - start);
    const fd = this.#fd ?? openSync(this.path, 'r');
    try {
      const read = readSync(fd, out, 0, end - start, start);
      return { start, bytes: out.subarray(0, read) };
    } finally {
      if (this.#fd === undefined) closeSync(fd);
    }
  }

  /**
   * Releases the oldest output when more than `retainBytes` is kept, down to half of it. Resolves
   * when done (at once when nothing is to release, or when `fallocate` is not available: then the
   * whole output is kept).
   */
  trim(): Promise<void> {
    if (this.#trimming) return this.#trimming;
    const size = this.size;
    if (size - this.#firstKept <= this.#retainBytes) return Promise.resolve();
    const keepFrom = Math.floor((size - this.#retainBytes / 2) / BLOCK) * BLOCK;
    const from = this.#firstKept;
    this.#trimming = new Promise<void>((resolve) => {
      const args = ['--punch-hole', '--offset', String(from), '--length', String(keepFrom - from)];
      execFile('fallocate', [...args, this.path], (error) => {
        if (!error) this.#firstKept = keepFrom;
        this.#trimming = undefined;
        resolve();
      });
    });
    return this.#trimming;
  }

  /** Closes the file; it stays for range reads. */
  close(): void {
    if (this.#fd === undefined) return;
    this.#closedSize = fstatSync(this.#fd).size;
    closeSync(this.#fd);
    this.#fd = undefined;
  }

  /** Closes and deletes the file. */
  remove(): void {
    this.close();
    rmSync(this.path, { force: true });
  }
}
