// Builds a large session through the real Session API with bounded memory: it is written in
// slices, each slice opened lazily from the snapshot the previous close wrote. Compactions keep
// the surface near `surface` entries, as a long-running agent's would be.
import type { SessionStore } from '@spine/protocol';
import { Session } from '../src/index.js';
import { assistantText, toolArguments, toolText, userText } from './corpus.js';

const SLICE = 20_000;

/** Appends turns until the session has `count` events; returns the surface's size in bytes. */
export async function buildSession(
  store: SessionStore,
  id: string,
  count: number,
  surface = 2_000,
): Promise<{ surfaceBytes: number }> {
  let session = await Session.create({ store, id, snapshots: { afterEvents: SLICE } });
  let turn = 0;
  let calls = 0;
  const append = { surfaceOp: { op: 'append' as const } };
  while (session.lastSeq < count) {
    turn++;
    session.append('turn/start', {}, { turn });
    const user = session.append(
      'user/message',
      { content: userText(), source: 'user' },
      { turn, ...append },
    );
    const id = `call-${++calls}`;
    const call = { type: 'tool-call', id, name: 'grep', arguments: toolArguments() };
    session.append(
      'assistant/message',
      { content: [call], finishReason: 'tool-calls' },
      { turn, step: 1, ...append },
    );
    session.append(
      'tool/started',
      { toolCallId: id, toolName: 'grep', arguments: call.arguments },
      { turn, step: 1 },
    );
    session.append(
      'tool/result',
      { toolCallId: id, toolName: 'grep', content: toolText(), isError: false },
      { turn, step: 1, ...append },
    );
    const answer = session.append(
      'assistant/message',
      { content: [{ type: 'text', text: assistantText() }], finishReason: 'stop' },
      { turn, step: 2, ...append },
    );
    session.append('turn/end', { reason: 'completed' }, { turn });
    const seqs = session.surface();
    if (seqs.length > surface) {
      // Compact the oldest 400 entries (whole turns: user … assistant text) into one summary.
      const start = seqs[0] as number;
      let end = seqs[399] as number;
      for (let i = 399; i < seqs.length; i++) {
        const event = session.get(seqs[i] as number);
        if (
          event?.type === 'assistant/message' &&
          (event.body as { finishReason?: string }).finishReason === 'stop'
        ) {
          end = seqs[i] as number;
          break;
        }
      }
      if (end < user.seq) {
        session.append(
          'user/message',
          { content: `Summary of ${start}..${end}:\n${assistantText()}`, source: 'compaction' },
          { turn, surfaceOp: { op: 'replace', start, end } },
        );
      }
    }
    session.checkpoint();
    if (answer.seq % SLICE < 7) {
      await session.close();
      session = await Session.open({
        store,
        id: session.id,
        history: 'lazy',
        snapshots: { afterEvents: SLICE },
      });
    }
  }
  await session.snapshot();
  let surfaceBytes = 0;
  for (const seq of session.surface())
    surfaceBytes += Buffer.byteLength(JSON.stringify(session.get(seq)));
  await session.close();
  return { surfaceBytes };
}
