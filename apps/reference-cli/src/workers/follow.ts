import { postgresStoreFor, SessionNotFoundError } from '@spine/harness';
import { type SessionEvent, visibleJson, visibleText } from '@spine/protocol';
import type { AgentFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';

/** One event as `spine show --events` prints it. */
export function eventLine(event: SessionEvent): string {
  const where =
    event.turn === undefined
      ? ''
      : ` t${event.turn}${event.step === undefined ? '' : `.${event.step}`}`;
  return `${String(event.seq).padStart(6)} ${visibleText(event.type)}${where} ${visibleJson(JSON.stringify(event.body))}\n`;
}

/**
 * `spine show <id> --follow --store <url>`: prints the session's events, then each new one as it
 * is committed (from any machine), until Ctrl-C or SIGTERM.
 *
 * @throws a {@link SessionNotFoundError} when the id is not in the store.
 */
export async function followCommand(
  id: string,
  url: string,
  flags: AgentFlags & { json?: boolean },
): Promise<number> {
  const store = postgresStoreFor(url);
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    if (!(await store.exists(id)))
      throw new SessionNotFoundError({ sessionId: id, dir: 'the store' });
    for await (const event of store.follow(id, { signal: controller.signal })) {
      process.stdout.write(
        flags.json ? `${visibleJson(JSON.stringify(event))}\n` : eventLine(event),
      );
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await store.close();
  }
  return EXIT_CODES.ok;
}
