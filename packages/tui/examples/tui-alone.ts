// @spine/tui alone: a session printed as a terminal transcript, streamed event by event, and an
// approval question answered by a typed line. Run: npx tsx packages/tui/examples/tui-alone.ts
import { PassThrough } from 'node:stream';
import { createMemoryStore, Session } from '@spine/session-log';
import {
  createChunkWriter,
  createLineApprover,
  streamSink,
  styleFor,
  writeTranscript,
} from '@spine/tui';

// A short recorded session (a real one comes from its store: JSONL files, SQLite, PostgreSQL).
const session = await Session.create({ store: createMemoryStore(), id: 'demo', cwd: '/work' });
const onSurface = { turn: 1, surfaceOp: { op: 'append' } } as const;
session.append('turn/start', {}, { turn: 1 });
session.append('user/message', { content: 'Run the tests', source: 'user' }, onSurface);
session.append(
  'assistant/message',
  {
    content: [{ type: 'tool-call', id: 'c1', name: 'bash', arguments: '{"command":"npm test"}' }],
    finishReason: 'tool-calls',
    usage: { inputTokens: 1200, cacheReadTokens: 1024, cacheWriteTokens: 0, outputTokens: 18 },
  },
  onSurface,
);
session.append(
  'tool/result',
  { toolCallId: 'c1', toolName: 'bash', content: '3 passed\n\x1b[2J[exit code 0]', isError: false },
  onSurface,
);

// Colours on a terminal; plain text in a pipe, with NO_COLOR or TERM=dumb. The escape sequence
// the tool printed is shown, not obeyed.
const style = styleFor(process.stdout);
const out = createChunkWriter(streamSink(process.stdout));
await writeTranscript(session.readEvents({ fromSeq: 1 }), out, { style });
await out.end();
await session.close();

// The approval question a tool call puts to the person; the answer is the line they type.
const typed = new PassThrough();
const approver = createLineApprover({ input: typed, output: process.stdout, style });
const answer = approver.approve(
  {
    toolCallId: 'c2',
    toolName: 'bash',
    args: { command: 'rm -rf dist' },
    reason: 'bash asks before it runs',
  },
  {},
);
typed.write('a\n');
console.log(`\nanswer: ${await answer}`); // always
approver.close();
