import { join } from 'node:path';
import { storeFor, storeUrlOf, streamSessionEvents, UsageError } from '@spine/harness';
import { visibleText } from '@spine/protocol';
import { writeSessionMarkdown } from '@spine/session-log';
import {
  type ChunkSink,
  createChunkWriter,
  fileSink,
  streamSink,
  writeJsonArray,
} from '@spine/tui';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';
import { withImageMarkers } from '../html/image-marker.js';

/**
 * `spine export <id> --format md|json|html [-o file]`. The events are streamed from the store and
 * written as they come, so a long session is not held in memory.
 */
export async function exportCommand(
  id: string,
  flags: AgentFlags & { format?: string; output?: string },
): Promise<number> {
  const format = flags.format ?? 'md';
  if (format !== 'md' && format !== 'json' && format !== 'html') {
    throw new UsageError({ message: `--format expects md, json or html, got "${format}"` });
  }
  const { config } = configForFlags(flags).loaded;
  const events = await streamSessionEvents(storeFor(config), id, config.sessionDir);
  const file = flags.output ? fileSink(flags.output) : undefined;
  const sink: ChunkSink = file ? file.sink : streamSink(process.stdout);
  try {
    // Model and tool text never reaches a terminal or a Markdown file raw: C0 and C1 controls
    // (but line feeds and tabs), bidi and zero-width marks are written escaped (`\x1b`, `\u202e`).
    if (format === 'md')
      await writeSessionMarkdown(withImageMarkers(events), (chunk) =>
        sink(visibleText(chunk, { keepLineBreaks: true })),
      );
    else if (format === 'html') {
      // The renderer loads marked and jsdiff: only for this format.
      const { writeSessionHtml } = await import('../html/export-html.js');
      const writer = createChunkWriter(sink);
      const logPath = storeUrlOf(config) ? undefined : join(config.sessionDir, `${id}.jsonl`);
      await writeSessionHtml(storeFor(config), id, writer, logPath ? { logPath } : {});
      await writer.end();
    } else {
      const writer = createChunkWriter(sink);
      await writer.write(`{\n  "sessionId": ${JSON.stringify(id)},\n  "events": `);
      await writeJsonArray(events, writer, { indent: 2 });
      await writer.write('\n}\n');
      await writer.end();
    }
  } finally {
    file?.close();
  }
  return EXIT_CODES.ok;
}
