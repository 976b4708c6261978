// Child process for lease.test.ts and crash.test.ts. Arguments: url schema sessionId mode leaseMs.
// `serve`: opens the session for writing (printing `opened <lastSeq>` or `error <code> <name>`),
// then obeys stdin lines `append <n>` (prints `acked <lastSeq>` or `error <code> <name>`) and
// `close`. `loop`: opens (or creates) the session and appends batches of 1–20 events forever,
// printing `acked <lastSeq>` after each flush. `write-ahead`: appends 5 events without flushing,
// then a tool/started, and SIGKILLs itself right after that append returns. `write-ahead-image`:
// puts a 2 MB blob, appends (without flushing) a message referencing it, then a tool/started,
// and SIGKILLs itself right after that append returns.
import { createHash, randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { OpenedSession, SessionEvent } from '@spine/protocol';
import { createPostgresStore } from '../src/index.js';

const [url, schema, id, mode, leaseText] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const store = createPostgresStore({
  connectionString: url,
  schema,
  leaseMs: Number(leaseText),
  owner: `child-${process.pid}`,
});

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const failure = (error: unknown): string => {
  const { code, name } = error as { code?: string; name?: string };
  return `error ${code ?? 'none'} ${name ?? 'Error'}`;
};

function events(from: number, count: number): SessionEvent[] {
  const out: SessionEvent[] = [];
  for (let seq = from; seq < from + count; seq++) {
    out.push({
      seq,
      type: 'note/child',
      at: new Date().toISOString(),
      body: { seq, pid: process.pid, text: `event ${seq} from ${process.pid}` },
    });
  }
  return out;
}

let writer: OpenedSession;
try {
  writer = await store.open(id);
} catch (error) {
  say(failure(error));
  process.exit(0);
}
let last = writer.lastSeq;
say(`opened ${last}`);

if (mode === 'write-ahead') {
  // Five events sent asynchronously and not flushed, then tool/started, then the process dies
  // at once: the tool would have run right here.
  writer.append(events(last + 1, 5));
  writer.append([
    {
      seq: last + 6,
      type: 'tool/started',
      at: new Date().toISOString(),
      body: { toolCallId: 'c1', toolName: 'bash', arguments: '{}' },
    },
  ]);
  process.kill(process.pid, 'SIGKILL');
}

if (mode === 'write-ahead-image') {
  const bytes = randomBytes(2 * 1024 * 1024);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  writer.blobs.put(sha256, bytes);
  writer.append([
    {
      seq: last + 1,
      type: 'user/message',
      at: new Date().toISOString(),
      body: {
        content: 'what is on this screen?',
        images: [{ mediaType: 'image/png', size: bytes.length, sha256, width: 1, height: 1 }],
      },
    },
  ]);
  writer.append([
    {
      seq: last + 2,
      type: 'tool/started',
      at: new Date().toISOString(),
      body: { toolCallId: 'c1', toolName: 'read', arguments: '{}' },
    },
  ]);
  say(`put ${sha256}`);
  process.kill(process.pid, 'SIGKILL');
}

if (mode === 'loop') {
  for (;;) {
    const count = 1 + Math.floor(Math.random() * 20);
    writer.append(events(last + 1, count));
    await writer.flush();
    last += count;
    say(`acked ${last}`);
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  const [command, argument] = line.split(' ');
  if (command === 'append') {
    try {
      writer.append(events(last + 1, Number(argument)));
      await writer.flush();
      last += Number(argument);
      say(`acked ${last}`);
    } catch (error) {
      say(failure(error));
    }
  } else if (command === 'close') {
    await writer.close().catch(() => {});
    await store.close();
    say('closed');
    process.exit(0);
  }
}
