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
  for (;;) {
    const seq = session.lastSeq + 1;
    // Sizes vary from tiny to 160 KB so that a kill can land in the middle of a large write.
    const size = seq % 10 === 0 ? 64_000 + ((seq * 7919) % 100_000) : 100 + ((seq * 131) % 2000);
    const content = `seq ${seq} `.padEnd(size, String.fromCharCode(97 + (seq % 26)));
    session.append('user/message', { content, source: 'user' }, { surfaceOp: { op: 'append' } });
    process.stdout.write(`${seq}\n`);
  }
}
