// Child process for crash.test.ts, lock.test.ts and exit.test.ts: opens (or creates) a JSONL
// session. `loop` appends forever with fsync 'always', printing each acknowledged seq on its own
// line; `hold` keeps the lock; `exit` appends three events with fsync 'never' and exits without
// closing the session.
import { createJsonlStore, Session } from '../src/index.js';

const [dir, id, mode] = process.argv.slice(2) as [string, string, string];
const store = createJsonlStore({ dir, fsync: mode === 'exit' ? 'never' : 'always' });
const session = (await store.exists(id))
  ? await Session.open({ store, id })
  : await Session.create({ store, id });
process.stdout.write(`ready ${session.lastSeq}\n`);
if (mode === 'hold') {
  setInterval(() => {}, 1000);
} else if (mode === 'exit') {
  for (let i = 0; i < 3; i++) {
    session.append(
      'user/message',
      { content: `before exit ${i}`, source: 'user' },
      { surfaceOp: { op: 'append' } },
    );
  }
  process.exit(0);
} else {
  // Each cycle: a user message of varying size (tiny to 160 KB, so a kill can land in a large
  // write), an assistant tool call, tool/started, and the tool's result. A kill between them
  // leaves a call for recovery to answer. Every acknowledged append is printed as "<seq> <type>".
  const surface = { surfaceOp: { op: 'append' as const } };
  const acked = (event: { seq: number; type: string }) =>
    process.stdout.write(`${event.seq} ${event.type}\n`);
  for (;;) {
    const seq = session.lastSeq + 1;
    const size = seq % 10 === 0 ? 64_000 + ((seq * 7919) % 100_000) : 100 + ((seq * 131) % 2000);
    const content = `seq ${seq} `.padEnd(size, String.fromCharCode(97 + (seq % 26)));
    acked(session.append('user/message', { content, source: 'user' }, surface));
    const toolCallId = `call-${seq}`;
    const call = { type: 'tool-call', id: toolCallId, name: 'write', arguments: '{}' };
    acked(
      session.append('assistant/message', { content: [call], finishReason: 'tool-calls' }, surface),
    );
    acked(session.append('tool/started', { toolCallId, toolName: 'write', arguments: '{}' }));
    acked(
      session.append(
        'tool/result',
        { toolCallId, toolName: 'write', content: 'done', isError: false },
        surface,
      ),
    );
  }
}
