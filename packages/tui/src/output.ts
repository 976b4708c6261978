// Output for commands that stream a session instead of loading it: text is gathered into
// chunks of about 64 KiB and handed to a sink (stdout, a file), which is awaited when it pushes
// back, so at most one chunk is held whatever the length of the log.

import { closeSync, openSync, writeSync } from 'node:fs';
import type { SessionEvent } from '@spine/protocol';

/** Where a {@link ChunkWriter} sends its chunks; awaited before more text is gathered. */
export type ChunkSink = (chunk: string) => void | Promise<void>;

/** Gathers text and passes it on in chunks. */
export interface ChunkWriter {
  /** Adds `text`; passes the gathered text to the sink once it is a chunk long. */
  write(text: string): Promise<void>;
  /** Passes on what is left. */
  end(): Promise<void>;
}

/** Chunk size of {@link createChunkWriter} unless told otherwise. */
export const DEFAULT_CHUNK_CHARS = 65_536;

/** A writer that hands `sink` chunks of at least `chunkChars` characters (the last one shorter). */
export function createChunkWriter(sink: ChunkSink, chunkChars = DEFAULT_CHUNK_CHARS): ChunkWriter {
  let buffer = '';
  return {
    async write(text) {
      buffer += text;
      if (buffer.length < chunkChars) return;
      const chunk = buffer;
      buffer = '';
      await sink(chunk);
    },
    async end() {
      const chunk = buffer;
      buffer = '';
      if (chunk.length > 0) await sink(chunk);
    },
  };
}

/**
 * A sink writing to `stream` that waits for `drain` when the stream pushes back, and stops
 * waiting when it closes or fails (a closed stdout stops the output, not the command).
 */
export function streamSink(stream: NodeJS.WritableStream): ChunkSink {
  return (chunk) => {
    if (stream.write(chunk)) return;
    if ((stream as { destroyed?: boolean }).destroyed) return;
    return new Promise<void>((resolve) => {
      const done = (): void => {
        stream.off('drain', done);
        stream.off('close', done);
        stream.off('error', done);
        resolve();
      };
      stream.once('drain', done);
      stream.once('close', done);
      stream.once('error', done);
    });
  };
}

/** A sink writing to the file at `path` (created or truncated); `close` releases it. */
export function fileSink(path: string): {
  sink: ChunkSink;
  /** Closes the file. */
  close: () => void;
} {
  const fd = openSync(path, 'w');
  return {
    sink: (chunk) => {
      writeSync(fd, chunk);
    },
    close: () => closeSync(fd),
  };
}

/**
 * Writes `events` as the JSON text `JSON.stringify(events, null, 2)` would give with every line
 * indented by `indent` spaces after the first, byte for byte, one event at a time; `map` is
 * applied to each piece of JSON text (terminal-safe escaping, say) and must work character by
 * character.
 */
export async function writeJsonArray(
  events: AsyncIterable<SessionEvent>,
  writer: ChunkWriter,
  options: { indent?: number; map?: (json: string) => string } = {},
): Promise<void> {
  const outer = ' '.repeat(options.indent ?? 0);
  const inner = `${outer}  `;
  const map = options.map ?? ((json: string) => json);
  let first = true;
  for await (const event of events) {
    const json = JSON.stringify(event, null, 2).replaceAll('\n', `\n${inner}`);
    await writer.write(map(`${first ? '[\n' : ',\n'}${inner}${json}`));
    first = false;
  }
  await writer.write(first ? '[]' : `\n${outer}]`);
}
