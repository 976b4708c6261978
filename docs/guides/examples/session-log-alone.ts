// Runnable companion of docs/guides/adopting-session-log.md: @spine/session-log used alone, by a
// harness that calls its own model. Offline; run with
//   npx tsx docs/guides/examples/session-log-alone.ts
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AssistantMessageBody, Message, SessionEvent } from '@spine/protocol';
import { textOf } from '@spine/protocol';
import {
  createJsonlStore,
  createMemoryStore,
  IllegalSurfaceOpError,
  Session,
} from '@spine/session-log';

const dir = process.argv[3] ?? mkdtempSync(join(tmpdir(), 'spine-guide-'));

// The harness's own model call: anything that turns messages into an assistant message.
function callMyModel(messages: readonly Message[]): AssistantMessageBody {
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    return {
      content: [{ type: 'text', text: `The file says: ${last.content}` }],
      finishReason: 'stop',
    };
  }
  return {
    content: [
      { type: 'text', text: 'Reading it.' },
      { type: 'tool-call', id: 'call_1', name: 'read', arguments: '{"path":"notes.txt"}' },
    ],
    finishReason: 'tool-calls',
  };
}

// A custom surface type: a reviewer's note that the model sees as a user message.
const reviewNote = {
  type: 'review/note',
  surface: true,
  validate: (body: unknown) =>
    typeof (body as { text?: unknown }).text === 'string' ? undefined : 'text must be a string',
  project: (event: SessionEvent): Message[] => [
    {
      role: 'user',
      content: `Reviewer: ${(event.body as { text: string }).text}`,
      source: 'review',
    },
  ],
};

if (process.argv[2] === 'crash') {
  // Child process: start a tool call, then die without closing, leaving a torn line behind.
  const store = createJsonlStore({ dir, fsync: 'always' });
  const session = await Session.create({ store, id: 'crashed' });
  session.append(
    'user/message',
    { content: 'Delete build/.', source: 'user' },
    { turn: 1, surfaceOp: { op: 'append' } },
  );
  session.append(
    'assistant/message',
    {
      content: [
        { type: 'tool-call', id: 'rm_1', name: 'bash', arguments: '{"command":"rm -rf build"}' },
        { type: 'tool-call', id: 'ls_1', name: 'bash', arguments: '{"command":"ls"}' },
      ],
      finishReason: 'tool-calls',
    },
    { turn: 1, step: 1, surfaceOp: { op: 'append' } },
  );
  session.append(
    'tool/started',
    { toolCallId: 'rm_1', toolName: 'bash', arguments: '{"command":"rm -rf build"}' },
    { turn: 1, step: 1 },
  );
  appendFileSync(join(dir, 'crashed.jsonl'), '{"seq":5,"type":"tool/res');
  process.exit(0);
}

// 1. Create a session and record one turn of your own loop.
const store = createJsonlStore({ dir });
const session = await Session.create({ store, id: 'demo', title: 'read the notes', cwd: dir });
session.append('turn/start', {}, { turn: 1 });
session.append(
  'user/message',
  { content: 'What is in notes.txt?', source: 'user' },
  { turn: 1, surfaceOp: { op: 'append' } },
);
for (let step = 1; ; step++) {
  const { messages } = session.deriveMessages();
  const reply = callMyModel(messages);
  session.append('assistant/message', reply, { turn: 1, step, surfaceOp: { op: 'append' } });
  const calls = reply.content.filter((part) => part.type === 'tool-call');
  if (calls.length === 0) break;
  for (const call of calls) {
    session.append(
      'tool/started',
      { toolCallId: call.id, toolName: call.name, arguments: call.arguments },
      { turn: 1, step },
    );
    session.append(
      'tool/result',
      {
        toolCallId: call.id,
        toolName: call.name,
        content: 'buy milk',
        isError: false,
        outcome: 'ok',
        meta: { sourcePath: 'notes.txt' },
      },
      { turn: 1, step, surfaceOp: { op: 'append' } },
    );
  }
}
session.append('turn/end', { reason: 'completed' }, { turn: 1 });
session.checkpoint();
const derived = session.deriveMessages();
console.log(
  'messages:',
  derived.messages.map((m) => m.role).join(' → '),
  'from seqs',
  derived.seqs.join(','),
);
const last = derived.messages.at(-1);
if (last?.role === 'assistant') console.log('answer:', textOf(last));

// 2. A custom surface type with its projection.
session.registerEventType(reviewNote);
session.append(
  'review/note',
  { text: 'Keep answers short.' },
  { turn: 2, surfaceOp: { op: 'append' } },
);
console.log('custom type projects to:', session.deriveMessages().messages.at(-1));

// 3. Surface replace: fold seqs 3..(first tool result) into one message. Splitting a call from
// its result is refused.
const [first, second, third] = session.surface();
try {
  session.append(
    'user/message',
    { content: 'x', source: 'compact-checkpoint' },
    { turn: 2, surfaceOp: { op: 'replace', start: first!, end: second! } },
  );
} catch (error) {
  if (error instanceof IllegalSurfaceOpError) console.log('refused:', error.message);
}
const folded = session.append(
  'user/message',
  {
    content: '<summary>The user asked about notes.txt; it says "buy milk".</summary>',
    source: 'compact-checkpoint',
  },
  {
    turn: 2,
    surfaceOp: { op: 'replace', start: first!, end: third! },
    sourceEventSeqs: [first!, second!, third!],
  },
);
const afterReplace = session.deriveMessages();
console.log(
  `replace at seq ${folded.seq}: generation ${afterReplace.generation}, surface ${session.surface().join(',')}, log still has ${session.lastSeq} events`,
);

// 4. Fork from an earlier seq into a new session (same seqs, header.parent set).
const fork = await session.fork(7, { id: 'demo-fork' });
console.log('fork parent:', fork.header.parent, 'fork lastSeq:', fork.lastSeq);
await fork.close();
await session.close();

// 5. Crash recovery: a child process dies mid-tool-call; opening repairs the session.
const child = spawnSync(
  process.execPath,
  [...process.execArgv, fileURLToPath(import.meta.url), 'crash', dir],
  { stdio: 'inherit' },
);
if (child.status !== 0) throw new Error('the crash child failed');
const recovered = await Session.open({ store, id: 'crashed' });
for (const event of recovered.events({ from: 4 }))
  console.log(`#${event.seq} ${event.type}`, JSON.stringify(event.body));
await recovered.close();

// 6. Other stores: the same Session API over memory (tests) — and SQLite from a subpath.
const memory = await Session.create({ store: createMemoryStore(), title: 'in memory' });
console.log('memory store:', memory.header.title, memory.lastSeq);
await memory.close();
console.log('sessions in the JSONL store:', (await store.list()).map((s) => s.id).join(', '));
const { createSqliteStore } = await import('@spine/session-log/sqlite'); // needs better-sqlite3
const sqlite = createSqliteStore({ path: join(dir, 'sessions.db') });
const reader = await Session.open({ store, id: 'demo', readOnly: true, eventTypes: [reviewNote] });
const copy = await reader.fork(7, { store: sqlite, id: 'in-sqlite' });
console.log('forked into SQLite:', copy.id, copy.deriveMessages().messages.length, 'messages');
await copy.close();
await reader.close();
await sqlite.close();
rmSync(dir, { recursive: true, force: true });
