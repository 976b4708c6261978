// Deterministic session histories the compaction kits run against, built with SessionLog.append.
import type { SessionLog } from '@spine/protocol';

const WORDS = [
  'parser',
  'config',
  'build',
  'retry',
  'socket',
  'cache',
  'index',
  'schema',
  'token',
  'render',
  'module',
  'import',
  'export',
  'failed',
  'passed',
  'value',
  'error',
  'handler',
  'stream',
  'queue',
];

/** `count` words picked deterministically from `seed`, with numbers so no two runs repeat. */
export function words(count: number, seed: number): string {
  const out: string[] = [];
  let state = seed * 7919 + 17;
  for (let index = 0; index < count; index++) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    out.push(`${WORDS[state % WORDS.length]}${index % 7 === 0 ? `_${state % 1000}` : ''}`);
  }
  return out.join(' ');
}

/** Appends a user request to the surface; returns its seq. */
export function ask(session: SessionLog, content: string, turn: number): number {
  return session.append(
    'user/message',
    { content, source: 'user' },
    { turn, surfaceOp: { op: 'append' } },
  ).seq;
}

/** Appends one step: an assistant tool call and its result. */
export function step(session: SessionLog, turn: number, index: number, resultWords: number): void {
  const id = `kit_${turn}_${index}`;
  session.append(
    'assistant/message',
    {
      content: [
        { type: 'text', text: `Reading module ${index}.` },
        {
          type: 'tool-call',
          id,
          name: 'read_file',
          arguments: JSON.stringify({ path: `src/module-${index}.ts` }),
        },
      ],
      finishReason: 'tool-calls',
    },
    { turn, step: index, surfaceOp: { op: 'append' } },
  );
  session.append(
    'tool/result',
    { toolCallId: id, toolName: 'read_file', content: words(resultWords, index), isError: false },
    { turn, step: index, surfaceOp: { op: 'append' } },
  );
}

/** A session with one request and `steps` tool steps of `resultWords` words each. */
export function fillSession(session: SessionLog, steps: number, resultWords = 120): SessionLog {
  ask(session, 'Fix the failing build in src/. Never touch the production database.', 1);
  for (let index = 1; index <= steps; index++) step(session, 1, index, resultWords);
  return session;
}
