// Resume after reopening (issue 20): a 100k-event session (every message on the surface, so the
// request-hash chain covers tens of thousands of messages) is opened and its first request built.
// Target: open + first request ≤ 1.2 × the open alone, judged on the 90% interval of the median
// per-round ratio in process CPU time (a 1–2 s open is CPU-bound; waiting for a core, which
// beside another `npm test` is most of a wall-clock second, does not count); the wall-clock ratio
// is reported beside it. Also measured without the saved chain values (every message
// canonicalised and hashed again, as before them), for comparison.
// SPINE_BENCH_RESUME_EVENTS sets the size (default 100,000).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolSpec } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import {
  cpuNow,
  interleave,
  judge,
  median,
  printReport,
  ratioCheck,
} from '../../../scripts/lib/bench-interleave.js';
import { RequestBuilder, SystemPrompt } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'spine-bench-resume-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const EVENTS = Number(process.env.SPINE_BENCH_RESUME_EVENTS ?? 100_000);
// 11 measured rounds: the 90% interval of the median then runs from the 3rd to the 9th ratio.
const ROUNDS = 11;
const REHASH_ROUNDS = 3;
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

/** One open with the messages derived; its wall and CPU time in ms. */
async function openOnce(id: string): Promise<Timed> {
  const started = performance.now();
  const cpu = cpuNow();
  const session = await Session.open({ store, id, snapshots: false });
  session.deriveMessages();
  const timed = { wall: performance.now() - started, cpu: cpuNow() - cpu };
  await session.close();
  return timed;
}

/**
 * One open, one new user message and the first request built; its wall and CPU time in ms.
 * Without `restore`, the saved chain values are left out and the builder hashes every message again.
 */
async function resumeOnce(id: string, restore: boolean): Promise<Timed> {
  const started = performance.now();
  const cpu = cpuNow();
  const session = await Session.open({ store, id, snapshots: false });
  if (!restore) {
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
  const timed = { wall: performance.now() - started, cpu: cpuNow() - cpu };
  await session.close();
  return timed;
}

interface Timed {
  wall: number;
  cpu: number;
}

const built = performance.now();
await build('big');
console.log(`built ${EVENTS} events in ${((performance.now() - built) / 1000).toFixed(1)} s`);
// Interleaved round by round, the order alternating (scripts/lib/bench-interleave.ts), a forced
// GC before each side; the first round is a warm-up. Each side records its CPU time beside the
// wall time it returns. The rehash variant, for comparison only, runs in the first rounds.
const cpu = { open: [] as number[], resume: [] as number[] };
const rehashes: number[] = [];
const samples = await interleave({
  sides: {
    open: async () => {
      const timed = await openOnce('big');
      cpu.open.push(timed.cpu);
      return timed.wall;
    },
    resume: async () => {
      const timed = await resumeOnce('big', true);
      cpu.resume.push(timed.cpu);
      return timed.wall;
    },
  },
  rounds: ROUNDS,
  warmup: 1,
  onRound: async (round, times) => {
    console.log(
      `round ${round + 1}/${ROUNDS}: open ${times.open.toFixed(0)} ms, open + first request ${times.resume.toFixed(0)} ms (cpu ${cpu.open.at(-1)?.toFixed(0)} / ${cpu.resume.at(-1)?.toFixed(0)} ms)`,
    );
  },
});
for (let round = 0; round < REHASH_ROUNDS; round++)
  rehashes.push((await resumeOnce('big', false)).wall);
// The warm-up round's CPU times are dropped like its wall times.
const cpuRatios = cpu.resume.slice(1).map((ms, round) => ms / (cpu.open[round + 1] ?? Number.NaN));
const wall = ratioCheck(
  samples,
  'resume',
  'open',
  { atMost: 1.2 },
  {
    name: 'open + first request ÷ open (wall)',
  },
);
const cpuCheck = judge('open + first request ÷ open (CPU)', cpuRatios, { atMost: 1.2 });
const openMs = median(samples.open);
printReport({
  bench: 'agent-loop/resume',
  checks: [cpuCheck],
  figures: {
    events: EVENTS,
    rounds: ROUNDS,
    openMs: Math.round(openMs),
    resumeMs: Math.round(median(samples.resume)),
    openCpuMs: Math.round(median(cpu.open.slice(1))),
    resumeCpuMs: Math.round(median(cpu.resume.slice(1))),
    wallRatio: wall.figure,
    wallRatio90: wall.interval,
    rehashResumeMs: Math.round(median(rehashes)),
    rehashRatio: Number((median(rehashes) / openMs).toFixed(2)),
    target: 1.2,
  },
});
