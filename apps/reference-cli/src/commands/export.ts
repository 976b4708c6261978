import { storeFor, streamSessionEvents, UsageError } from '@spine/harness';
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
    if (format === 'md') await writeSessionMarkdown(events, sink);
    else if (format === 'html') {
      // The renderer loads marked and jsdiff: only for this format.
      const { writeSessionHtml } = await import('../html/export-html.js');
      const writer = createChunkWriter(sink);
      await writeSessionHtml(storeFor(config), id, writer);
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
