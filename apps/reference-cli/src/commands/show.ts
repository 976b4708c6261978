import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';
import { styleFor } from '../present/style.js';
import { visibleJson, visibleText } from '../present/terminal-text.js';
import { renderTranscript } from '../present/transcript.js';
import { readSessionEvents, storeFor } from '../store.js';
import { requireStoreUrl } from '../workers/store-url.js';

/** `spine show <id> [--events] [--json]`: a readable transcript, or the raw events. */
export async function showCommand(
  id: string,
  flags: AgentFlags & { events?: boolean; reasoning?: boolean; follow?: boolean },
): Promise<number> {
  const { config } = configForFlags(flags).loaded;
  if (flags.follow) {
    const url = requireStoreUrl(config, 'show --follow');
    return (await import('../workers/follow.js')).followCommand(id, url, flags);
  }
  const events = await readSessionEvents(storeFor(config), id, config.sessionDir);
  if (flags.events && flags.json) {
    for (const event of events) process.stdout.write(`${visibleJson(JSON.stringify(event))}\n`);
  } else if (flags.json) {
    process.stdout.write(`${visibleJson(JSON.stringify(events, null, 2))}\n`);
  } else if (flags.events) {
    for (const event of events) {
      const where =
        event.turn === undefined
          ? ''
          : ` t${event.turn}${event.step === undefined ? '' : `.${event.step}`}`;
      process.stdout.write(
        `${String(event.seq).padStart(6)} ${visibleText(event.type)}${where} ${visibleJson(JSON.stringify(event.body))}\n`,
      );
    }
  } else {
    process.stdout.write(
      renderTranscript(events, {
        style: styleFor(process.stdout),
        reasoning: Boolean(flags.reasoning),
      }),
    );
    const { renderChildTree } = await import('../agents/tree.js');
    process.stdout.write(await renderChildTree(storeFor(config), id, styleFor(process.stdout)));
  }
  return EXIT_CODES.ok;
}
