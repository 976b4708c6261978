// A chained one-turn session written through the session log, so every event carries its chain
// value: the person asks "say done" and the answer is `ALL-DONE`, the text the audit tests alter
// to break the chain.
import { createJsonlStore, Session } from '@spine/session-log';

/** Writes the session `id` into `dir` (a JSONL session folder), titled `chained` unless told. */
export async function writeChainedSession(
  dir: string,
  id: string,
  options: { title?: string } = {},
): Promise<void> {
  const session = await Session.create({
    store: createJsonlStore({ dir, fsync: 'never' }),
    id,
    title: options.title ?? 'chained',
  });
  session.append('turn/start', {}, { turn: 1 });
  session.append(
    'user/message',
    { content: 'say done', source: 'user' },
    { turn: 1, surfaceOp: { op: 'append' } },
  );
  session.append(
    'assistant/message',
    { content: [{ type: 'text', text: 'ALL-DONE' }], finishReason: 'stop' },
    { turn: 1, step: 1, surfaceOp: { op: 'append' } },
  );
  session.append('turn/end', { reason: 'completed' }, { turn: 1 });
  await session.close();
}
