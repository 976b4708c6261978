import { storeFor, streamSessionEvents } from '@spine/harness';
import { visibleJson } from '@spine/protocol';
import {
  createChunkWriter,
  streamSink,
  styleFor,
  writeEventLines,
  writeEventsNdjson,
  writeJsonArray,
  writeTranscript,
} from '@spine/tui';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';
import { withImageMarkers } from '../html/image-marker.js';
import { requireStoreUrl } from '../workers/store-url.js';

/**
 * `spine show <id> [--events] [--json]`: a readable transcript, or the raw events. The events are
 * streamed from the store and written as they come, so a long session is not held in memory.
 */
export async function showCommand(
  id: string,
  flags: AgentFlags & { events?: boolean; reasoning?: boolean; follow?: boolean },
): Promise<number> {
  const { config } = configForFlags(flags).loaded;
  if (flags.follow) {
    const url = requireStoreUrl(config, 'show --follow');
    return (await import('../workers/follow.js')).followCommand(id, url, flags);
  }
  const store = storeFor(config);
  const events = await streamSessionEvents(store, id, config.sessionDir);
  const writer = createChunkWriter(streamSink(process.stdout));
  if (flags.events && flags.json) await writeEventsNdjson(events, writer);
  else if (flags.json) {
    await writeJsonArray(events, writer, { map: visibleJson });
    await writer.write('\n');
  } else if (flags.events) await writeEventLines(events, writer);
  else {
    const style = styleFor(process.stdout);
    // Attached images as a marker line each (type, size, sha256 prefix): the log holds no bytes.
    const pass = await writeTranscript(withImageMarkers(events), writer, {
      style,
      reasoning: Boolean(flags.reasoning),
    });
    // The subagent tree reads the children's sessions: only when there are any.
    if (pass.hasChildren) {
      const { renderChildTree } = await import('../agents/tree-view.js');
      await writer.write(await renderChildTree(store, id, style));
    }
  }
  await writer.end();
  return EXIT_CODES.ok;
}
