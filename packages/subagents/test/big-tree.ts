// A long parent session with subagents, for the heap test: written through the real session log
// with the agent loop's RequestBuilder (so every step has the request/header the loop writes),
// realistic tool output (code with newlines and quotes, Unicode), a compaction every 25 turns
// (the surface stays small while the log grows), children ended along the way and one left open
// by a "crash" at the end, and a snapshot as a closing session writes one.

import { RequestBuilder, SystemPrompt } from '@spine/agent-loop';
import type { SessionStore, ToolSpec, Usage } from '@spine/protocol';
import { Session } from '@spine/session-log';

const tools: ToolSpec[] = [
  { name: 'grep', description: 'Searches files', parameters: { type: 'object' } },
  { name: 'task', description: 'Runs a subagent', parameters: { type: 'object' } },
];
const prompt = new SystemPrompt('You are a coding agent.').assemble({ tools });
const usage: Usage = {
  inputTokens: 900,
  cacheReadTokens: 800,
  cacheWriteTokens: 0,
  outputTokens: 40,
};

function toolOutput(turn: number): string {
  const lines: string[] = [];
  for (let line = 0; line < 48; line++)
    lines.push(
      `src/module-${turn % 97}/file-${line}.ts:${line + 1}: export const value${line} = "turn ${turn} — naïve café ✓ ${'x'.repeat(turn % 13)}";`,
    );
  return lines.join('\n');
}

interface Writer {
  session: Session;
  builder: RequestBuilder;
}

function step(w: Writer, turn: number, calls: Array<{ id: string; name: string }>): void {
  w.builder.buildRequest({
    snapshot: prompt,
    modelId: 'm',
    provider: 'p',
    turn,
    step: 1,
    attempt: 1,
  });
  w.session.append(
    'assistant/message',
    {
      content: [
        { type: 'text', text: `Looking at "${turn}"…\nnext` },
        ...calls.map((call) => ({ type: 'tool-call', ...call, arguments: '{"pattern":"value"}' })),
      ],
      finishReason: calls.length > 0 ? 'tool-calls' : 'stop',
      usage,
    },
    { turn, step: 1, surfaceOp: { op: 'append' } },
  );
}

async function writeChild(
  store: SessionStore,
  id: string,
  parent: { sessionId: string; atSeq: number; toolCallId: string },
): Promise<void> {
  const session = await Session.create({ store, id, parent, snapshots: false });
  const w = { session, builder: new RequestBuilder(session) };
  session.append('turn/start', {}, { turn: 1 });
  session.append(
    'user/message',
    { content: 'look', source: 'user' },
    { turn: 1, surfaceOp: { op: 'append' } },
  );
  step(w, 1, []);
  session.append('turn/end', { reason: 'completed', steps: 1 }, { turn: 1 });
  await session.close();
}

/** Writes the parent (about `events` events) and its children; returns the parent's id. */
export async function writeBigTree(
  store: SessionStore,
  id: string,
  events: number,
): Promise<number> {
  const session = await Session.create({ store, id, snapshots: false });
  const w = { session, builder: new RequestBuilder(session) };
  let children = 0;
  let turn = 0;
  const task = async (open: boolean): Promise<void> => {
    const toolCallId = `task-${turn}`;
    const childId = `${id}-child-${++children}`;
    step(w, turn, [{ id: toolCallId, name: 'task' }]);
    session.append(
      'tool/started',
      { toolCallId, toolName: 'task', arguments: '{}' },
      { turn, step: 1 },
    );
    const start = session.append(
      'agent/child/start',
      { sessionId: childId, toolCallId, profile: 'explore', description: `look ${turn}`, depth: 1 },
      { turn, step: 1 },
    );
    await session.flush();
    await writeChild(store, childId, { sessionId: id, atSeq: start.seq, toolCallId });
    if (open) return;
    session.append(
      'agent/child/end',
      { sessionId: childId, toolCallId, reason: 'completed', steps: 1, usage },
      { turn, step: 1 },
    );
    session.append(
      'tool/result',
      { toolCallId, toolName: 'task', content: 'found it', isError: false },
      { turn, step: 1, surfaceOp: { op: 'append' } },
    );
  };
  while (session.lastSeq < events) {
    turn++;
    session.append('turn/start', {}, { turn });
    session.append(
      'user/message',
      { content: `Fix "bug" ${turn}\nin src/a.ts`, source: 'user' },
      { turn, surfaceOp: { op: 'append' } },
    );
    if (turn % 500 === 1) await task(false);
    const toolCallId = `grep-${turn}`;
    step(w, turn, [{ id: toolCallId, name: 'grep' }]);
    session.append(
      'tool/started',
      { toolCallId, toolName: 'grep', arguments: '{}' },
      { turn, step: 1 },
    );
    session.append(
      'tool/result',
      { toolCallId, toolName: 'grep', content: toolOutput(turn), isError: false },
      { turn, step: 1, surfaceOp: { op: 'append' } },
    );
    session.append('turn/end', { reason: 'completed', steps: 1 }, { turn });
    if (turn % 25 === 0) {
      const surface = session.surface();
      session.append(
        'user/message',
        { content: `Summary of turns up to ${turn}: fixed "bugs"\nin src/`, source: 'compaction' },
        {
          surfaceOp: { op: 'replace', start: surface[0] as number, end: surface.at(-1) as number },
        },
      );
    }
  }
  turn++;
  session.append('turn/start', {}, { turn });
  session.append(
    'user/message',
    { content: 'one more', source: 'user' },
    { turn, surfaceOp: { op: 'append' } },
  );
  await task(true); // the process stops while this child runs
  await session.snapshot();
  await session.close();
  return children;
}
