// Generated session trees for the streamed-reading tests: a parent and its subagents written
// through the real session log (JSONL store), with usage, file and shell tools, children that
// ended or were left open by a "crash", children that were never created, compactions that take
// old events off the surface, and snapshots (so lazy opens hold only part of each log).

import type { SessionStore, Usage } from '@spine/protocol';
import { Session } from '@spine/session-log';
import fc from 'fast-check';

/** One turn of a generated session. */
export interface TurnSpec {
  tokens: number;
  bash?: string;
  write?: { path: string; fails: boolean };
  child?: ChildSpec;
  /** Replace the whole surface with a summary after the turn. */
  compact: boolean;
  /** Write a snapshot after the turn. */
  snapshot: boolean;
  /** Filler events (not on the surface) after the turn. */
  filler: number;
}

/** A `task` call of a turn and the child it started. */
export interface ChildSpec {
  node: NodeSpec;
  /** How the parent recorded the child: ended, left open by a crash, or never created. */
  state: 'ended' | 'open' | 'open-answered' | 'missing';
}

/** A generated session. */
export interface NodeSpec {
  turns: TurnSpec[];
  /** The last turn has no `turn/end` (the process stopped). */
  openTurn: boolean;
}

const leaf: fc.Arbitrary<NodeSpec> = node(fc.constant(undefined));

function node(child: fc.Arbitrary<ChildSpec | undefined>): fc.Arbitrary<NodeSpec> {
  const turn = fc.record(
    {
      tokens: fc.integer({ min: 0, max: 5000 }),
      bash: fc.constantFrom('npm test', 'ls -la', 'echo "a\nb"'),
      write: fc.record({ path: fc.constantFrom('a.ts', 'b.ts', 'src/ü.ts'), fails: fc.boolean() }),
      child,
      compact: fc.boolean(),
      snapshot: fc.boolean(),
      filler: fc.integer({ min: 0, max: 40 }),
    },
    { requiredKeys: ['tokens', 'compact', 'snapshot', 'filler'] },
  );
  return fc.record({ turns: fc.array(turn, { maxLength: 4 }), openTurn: fc.boolean() });
}

function childOf(inner: fc.Arbitrary<NodeSpec>): fc.Arbitrary<ChildSpec | undefined> {
  return fc.option(
    fc.record({
      node: inner,
      state: fc.constantFrom<ChildSpec['state']>(
        'ended',
        'ended',
        'open',
        'open-answered',
        'missing',
      ),
    }),
    { nil: undefined },
  );
}

/** A tree of depth ≤ 2 (a parent, its children and theirs). */
export const treeSpec: fc.Arbitrary<NodeSpec> = node(childOf(node(childOf(leaf))));

/** Only trees whose every linked child exists (readSessionTree and replayTree throw otherwise). */
export function withoutMissing(spec: NodeSpec): boolean {
  return spec.turns.every(
    (turn) => !turn.child || (turn.child.state !== 'missing' && withoutMissing(turn.child.node)),
  );
}

const usageOf = (tokens: number): Usage => ({
  inputTokens: tokens,
  cacheReadTokens: Math.floor(tokens / 2),
  cacheWriteTokens: tokens % 7,
  outputTokens: tokens % 101,
});

let counter = 0;

/** A fresh session id. */
export function newId(): string {
  return `s${++counter}-${process.pid}`;
}

/** Writes `spec` into `store` as session `id`; returns `id`. */
export async function writeTree(
  store: SessionStore,
  spec: NodeSpec,
  id: string = newId(),
  parent?: { sessionId: string; atSeq: number; toolCallId: string; depth: number },
): Promise<string> {
  // The header's link as child-run writes it (with the task call's id).
  const link = parent && {
    sessionId: parent.sessionId,
    atSeq: parent.atSeq,
    toolCallId: parent.toolCallId,
  };
  const session = await Session.create({
    store,
    id,
    cwd: '/work',
    model: 'scripted/x',
    snapshots: false,
    ...(link ? { parent: link } : {}),
  });
  const depth = parent ? parent.depth : 0;
  for (const [index, turnSpec] of spec.turns.entries()) {
    const turn = index + 1;
    const last = index === spec.turns.length - 1;
    session.append('turn/start', {}, { turn });
    session.append(
      'user/message',
      { content: `turn ${turn}: fix "it"\nplease`, source: 'user' },
      { turn, surfaceOp: { op: 'append' } },
    );
    for (let filler = 0; filler < turnSpec.filler; filler++)
      session.append('step/start', {}, { turn, step: 1 });
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    const call = (name: string, args: unknown): void => {
      calls.push({ id: `${id}-${name}${turn}`, name, arguments: JSON.stringify(args) });
    };
    if (turnSpec.bash) call('bash', { command: turnSpec.bash });
    if (turnSpec.write) call('write', { path: turnSpec.write.path, content: 'x' });
    if (turnSpec.child) call('task', { description: `job ${turn}`, prompt: 'go' });
    session.append(
      'assistant/message',
      {
        content: [
          { type: 'text', text: `answer ${turn} ✓` },
          ...calls.map((entry) => ({ type: 'tool-call', ...entry })),
        ],
        finishReason: calls.length > 0 ? 'tool-calls' : 'stop',
        usage: usageOf(turnSpec.tokens),
      },
      { turn, step: 1, surfaceOp: { op: 'append' } },
    );
    let crashed = false;
    for (const entry of calls) {
      const { id: toolCallId, name: toolName } = entry;
      session.append(
        'tool/started',
        { toolCallId, toolName, arguments: entry.arguments },
        { turn, step: 1 },
      );
      const result = (content: string, isError: boolean): void => {
        session.append(
          'tool/result',
          { toolCallId, toolName, content, isError },
          { turn, step: 1, surfaceOp: { op: 'append' } },
        );
      };
      if (toolName !== 'task') {
        const fails = toolName === 'write' && turnSpec.write?.fails === true;
        result(fails ? 'denied' : 'ok\nline 2', fails);
        continue;
      }
      const child = turnSpec.child as ChildSpec;
      const childId = child.state === 'missing' ? `never-created-${newId()}` : newId();
      const start = session.append(
        'agent/child/start',
        {
          sessionId: childId,
          toolCallId,
          profile: 'general',
          description: `job ${turn}`,
          depth: depth + 1,
        },
        { turn, step: 1 },
      );
      await session.flush();
      if (child.state !== 'missing')
        await writeTree(store, child.node, childId, {
          sessionId: id,
          atSeq: start.seq,
          toolCallId,
          depth: depth + 1,
        });
      if (child.state === 'ended') {
        session.append(
          'agent/child/end',
          {
            sessionId: childId,
            toolCallId,
            reason: 'completed',
            steps: 1,
            usage: usageOf(turnSpec.tokens * 3 + 11),
            files: ['c.ts'],
            commands: ['make'],
          },
          { turn, step: 1 },
        );
        result(`child ${childId} done`, false);
      } else {
        crashed = true;
        if (child.state === 'open-answered') result('done before the crash', false);
      }
    }
    if (crashed || (last && spec.openTurn)) break; // the process stopped in this turn
    session.append('turn/end', { reason: 'completed', steps: 1 }, { turn });
    if (turnSpec.compact) {
      const surface = session.surface();
      const first = surface[0];
      const end = surface.at(-1);
      if (first !== undefined && end !== undefined)
        session.append(
          'user/message',
          { content: `summary up to turn ${turn}`, source: 'compaction' },
          { surfaceOp: { op: 'replace', start: first, end } },
        );
    }
    if (turnSpec.snapshot) await session.snapshot();
  }
  await session.close();
  return id;
}
