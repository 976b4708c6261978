import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

interface Segment {
  /** Offset of the segment's first byte in the job's whole output. */
  start: number;
  path: string;
  fd: number | undefined;
  size: number;
}

/**
 * A job's output on disk: appended in segments of `retainBytes / 4`, the oldest segment deleted
 * once more than `retainBytes` are kept, so a job that writes without end costs bounded disk and
 * no memory. Offsets count every byte the job ever wrote, so a range read of dropped output says so.
 */
export class JobOutputFile {
  readonly #dir: string;
  readonly #id: string;
  readonly #segmentBytes: number;
  readonly #retainBytes: number;
  readonly #segments: Segment[] = [];
  #total = 0;
  #closed = false;

  constructor(options: { dir: string; id: string; retainBytes: number }) {
    this.#dir = options.dir;
    this.#id = options.id;
    this.#retainBytes = Math.max(4096, options.retainBytes);
    this.#segmentBytes = Math.max(1024, Math.floor(this.#retainBytes / 4));
    this.#open(0);
  }

  /** Bytes the job wrote in all. */
  get size(): number {
    return this.#total;
  }

  /** Offset of the oldest byte still kept. */
  get firstKept(): number {
    return this.#segments[0]?.start ?? this.#total;
  }

  /** The path of the first segment (where the output starts). */
  get path(): string {
    return (this.#segments[0] as Segment).path;
  }

  /** Appends a chunk (synchronously: the chunk is never held). */
  append(chunk: Buffer): void {
    if (this.#closed) return;
    let rest = chunk;
    while (rest.length > 0) {
      let current = this.#segments[this.#segments.length - 1] as Segment;
      if (current.size >= this.#segmentBytes) current = this.#rotate();
      const room = this.#segmentBytes - current.size;
      const piece = rest.length <= room ? rest : rest.subarray(0, room);
      writeSync(current.fd as number, piece);
      current.size += piece.length;
      this.#total += piece.length;
      rest = rest.subarray(piece.length);
    }
  }

  /** Reads `length` bytes from `offset` (clamped to what is kept). */
  read(offset: number, length: number): { start: number; bytes: Buffer } {
    const start = Math.max(offset, this.firstKept);
    const end = Math.min(this.#total, offset + length);
    if (end <= start) return { start, bytes: Buffer.alloc(0) };
    const out = Buffer.alloc(end - start);
    let written = 0;
    for (const segment of this.#segments) {
      const from = Math.max(start, segment.start);
      const to = Math.min(end, segment.start + segment.size);
      if (to <= from) continue;
      const fd = segment.fd ?? openSync(segment.path, 'r');
      try {
        written += readSync(fd, out, written, to - from, from - segment.start);
      } finally {
        if (segment.fd === undefined) closeSync(fd);
      }
    }
    return { start, bytes: out.subarray(0, written) };
  }

  /** Closes the open segment; the files stay for range reads. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const segment of this.#segments) {
      if (segment.fd !== undefined) closeSync(segment.fd);
      segment.fd = undefined;
    }
  }

  /** Closes and deletes every segment. */
  remove(): void {
    this.close();
    for (const segment of this.#segments.splice(0)) rmSync(segment.path, { force: true });
  }

  #open(start: number): Segment {
    const path = join(this.#dir, `${this.#id}.${this.#segments.length === 0 ? 0 : start}.out`);
    const segment: Segment = { start, path, fd: openSync(path, 'w+', 0o600), size: 0 };
    this.#segments.push(segment);
    return segment;
  }

  #rotate(): Segment {
    const segment = this.#open(this.#total);
    // Keep at most `retainBytes` on disk, counting the new segment as full.
    while (
      this.#segments.length > 1 &&
      this.#total - (this.#segments[0] as Segment).start + this.#segmentBytes > this.#retainBytes
    ) {
      const dropped = this.#segments.shift() as Segment;
      if (dropped.fd !== undefined) closeSync(dropped.fd);
      rmSync(dropped.path, { force: true });
    }
    return segment;
  }
}
