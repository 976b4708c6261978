// Child process for crash.test.ts, lock.test.ts and exit.test.ts: opens (or creates) a JSONL
// session. `loop` appends forever with fsync 'always', printing each acknowledged seq on its own
// line; `big` appends alternating 1 KB and 4 MB messages, written through without fsync; `hold`
// keeps the lock; `exit` appends three events with fsync 'never' and exits without closing;
// `snapshot` opens lazily and writes a snapshot after every cycle of `loop`.
import { createJsonlStore, Session } from '../src/index.js';

const [dir, id, mode] = process.argv.slice(2) as [string, string, string];

/** Content length of event `seq` in `big` mode (crash.test.ts checks it). */
function bigLength(seq: number): number {
  return seq % 2 === 0 ? 4 * 1024 * 1024 : 1024;
}
// `big` writes each append through at once (flushBytes 0) without fsync: an acknowledged event is
// in the page cache, which a killed process cannot lose.
const store =
  mode === 'big'
    ? createJsonlStore({ dir, fsync: 'never', flushBytes: 0 })
    : createJsonlStore({ dir, fsync: mode === 'exit' ? 'never' : 'always' });
const session = (await store.exists(id))
  ? await Session.open({ store, id, history: mode === 'snapshot' ? 'lazy' : 'full' })
  : await Session.create({ store, id });
process.stdout.write(`ready ${session.lastSeq}\n`);
if (mode === 'hold') {
  // Holds the lock until killed, or until the test process goes away and closes our stdin.
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
} else if (mode === 'big') {
  // Alternates 1 KB and 4 MB messages: a kill often lands inside a 4 MB write, leaving a real torn
  // last line for the next open to cut.
  for (;;) {
    const seq = session.lastSeq + 1;
    const content = `seq ${seq} `.padEnd(bigLength(seq), 'x');
    const event = session.append(
      'user/message',
      { content, source: 'user' },
      { surfaceOp: { op: 'append' } },
    );
    process.stdout.write(`${event.seq} ${event.type}\n`);
  }
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
    if (mode === 'snapshot') {
      await session.snapshot();
      process.stdout.write(`snapshot ${session.lastSeq}\n`);
    }
  }
}
