// Resume after reopening (issue 20): a 100k-event session (every message on the surface, so the
// request-hash chain covers tens of thousands of messages) is opened and its first request built.
// Target: open + first request ≤ 1.2 × the open alone. Also measured without the saved chain
// values (every message canonicalised and hashed again, as before them), for comparison.
// SPINE_BENCH_RESUME_EVENTS sets the size (default 100,000).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ToolSpec } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { RequestBuilder, SystemPrompt } from '../src/index.js';

setFlagsFromString('--expose-gc');
const gc = (globalThis.gc ?? runInNewContext('gc')) as () => void;
const dir = mkdtempSync(join(tmpdir(), 'spine-bench-resume-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const EVENTS = Number(process.env.SPINE_BENCH_RESUME_EVENTS ?? 100_000);
const store = createJsonlStore({ dir, fsync: 'never' });
const tools: ToolSpec[] = [
  { name: 'read', description: 'Reads a file', parameters: { type: 'object' } },
];
const prompt = new SystemPrompt('You are a coding agent.').assemble({ tools });
const code = (i: number): string =>
  `function f${i}(input: string) {\n  return JSON.parse(input.replace(/\\n/g, "\\\\n")); // "${i}" é 😀\n}\n`.repeat(
    4,
  );

const request = (builder: RequestBuilder, turn: number) =>
  builder.buildRequest({
    snapshot: prompt,
    modelId: 'm',
    provider: 'p',
    turn,
    step: 1,
    attempt: 1,
  });

async function build(id: string): Promise<void> {
  const session = await Session.create({ store, id, snapshots: false });
  const builder = new RequestBuilder(session);
  let turn = 0;
  while (session.lastSeq < EVENTS) {
    turn++;
    const at = { turn, step: 1, surfaceOp: { op: 'append' as const } };
    const content = `Please fix ${turn}:\n${code(turn)}`;
    session.append('user/message', { content, source: 'user' }, at);
    request(builder, turn);
    const text = `Done:\n${code(turn + 1)}`;
    session.append(
      'assistant/message',
      { content: [{ type: 'text', text }], finishReason: 'stop' },
      at,
    );
  }
  await session.snapshot();
  await session.close();
}

async function openMs(id: string): Promise<number> {
  gc();
  const start = performance.now();
  const session = await Session.open({ store, id, snapshots: false });
  session.deriveMessages();
  const elapsed = performance.now() - start;
  await session.close();
  return elapsed;
}

async function resumeMs(id: string, restore: boolean): Promise<number> {
  gc();
  const start = performance.now();
  const session = await Session.open({ store, id, snapshots: false });
  if (!restore) {
    // The saved chain values left out: the builder hashes every message again.
    const saved = session.snapshotAttachment.bind(session);
    Object.assign(session, {
      snapshotAttachment: (name: string) => {
        const found = saved(name);
        return found && { ...found, value: { ...(found.value as object), chain: [] } };
      },
    });
  }
  const builder = new RequestBuilder(session);
  const turn = 1_000_000;
  const at = { turn, step: 1, surfaceOp: { op: 'append' as const } };
  session.append('user/message', { content: 'one more thing', source: 'user' }, at);
  request(builder, turn);
  const elapsed = performance.now() - start;
  await session.close();
  return elapsed;
}

const built = performance.now();
await build('big');
console.log(`built ${EVENTS} events in ${((performance.now() - built) / 1000).toFixed(1)} s`);
await openMs('big');
const opens: number[] = [];
const resumes: number[] = [];
const rehashes: number[] = [];
for (let round = 0; round < 5; round++) {
  opens.push(await openMs('big'));
  resumes.push(await resumeMs('big', true));
  rehashes.push(await resumeMs('big', false));
  console.log(
    `round ${round + 1}/5: open ${opens[round]?.toFixed(0)} ms, open + first request ${resumes[round]?.toFixed(0)} ms (hashing every message again: ${rehashes[round]?.toFixed(0)} ms)`,
  );
}
const median = (values: number[]): number =>
  values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const ratio = median(resumes.map((value, i) => value / (opens[i] as number)));
const rehashRatio = median(rehashes.map((value, i) => value / (opens[i] as number)));
console.log(
  JSON.stringify({
    bench: 'agent-loop/resume',
    events: EVENTS,
    openMs: +median(opens).toFixed(1),
    resumeMs: +median(resumes).toFixed(1),
    resumeRatio: +ratio.toFixed(2),
    rehashResumeMs: +median(rehashes).toFixed(1),
    rehashRatio: +rehashRatio.toFixed(2),
    target: 'resumeRatio <= 1.2',
    pass: ratio <= 1.2,
  }),
);
