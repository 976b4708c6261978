// Appending the same realistic conversation through pi's published SessionManager
// (@mariozechner/pi-coding-agent, see package.json) and through Spine's Session with the JSONL
// store, chain on (its default). Run by run.mjs, which installs pi here first; never part of
// `npm test`, `npm run bench` or CI (it needs the network once).
//
// The corpus (packages/session-log/bench/corpus.ts: code, tool output, JSON, Unicode prose) is
// generated once; each turn is four messages (user question, assistant tool call, tool result,
// assistant answer), appended one by one: pi's `appendMessage(message)`, Spine's
// `session.append('user/message' | 'assistant/message' | 'tool/result', body)` with the same
// text, so one pi entry is one Spine event. Neither side syncs (pi never does; Spine with fsync
// 'never'); Spine writes no snapshots (pi has none). Both sides start a new session each round
// and the timing includes closing it (Spine writes what is still buffered). pi and Spine
// alternate round by round, their order swapping each round, in this one process, so a busy
// machine slows both alike; the figure is the median of the per-round ratios with a 90%
// interval, and a pass needs the interval's low end at the target.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionManager } from '@mariozechner/pi-coding-agent';
import {
  assistantText,
  toolArguments,
  toolText,
  userText,
} from '../../packages/session-log/bench/corpus.js';
import { createJsonlStore, Session } from '../../packages/session-log/src/index.js';
import { type BenchCheck, judge, median, printReport } from '../../scripts/lib/bench-interleave.js';

const TARGET = 1.2;
const sizes = (process.env.SPINE_PEER_SIZES ?? '10000,100000').split(',').map(Number);
const roundsFor = (entries: number): number => (entries >= 100_000 ? 5 : 9);

interface Entry {
  pi: Record<string, unknown>;
  type: 'user/message' | 'assistant/message' | 'tool/result';
  body: Record<string, unknown>;
}

const usage = { input: 1200, output: 300, cacheRead: 0, cacheWrite: 0, totalTokens: 1500 };
const spineUsage = {
  inputTokens: 1200,
  outputTokens: 300,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};
const model = { api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5' };

/** `count` messages of whole turns, the same text for both sides. */
function corpus(count: number): Entry[] {
  const entries: Entry[] = [];
  const timestamp = Date.now();
  for (let call = 1; entries.length < count; call++) {
    const id = `call-${call}`;
    const question = userText();
    const args = toolArguments();
    const output = toolText();
    const answer = assistantText();
    entries.push({
      pi: { role: 'user', content: question, timestamp },
      type: 'user/message',
      body: { content: question, source: 'user' },
    });
    entries.push({
      pi: {
        role: 'assistant',
        content: [{ type: 'toolCall', id, name: 'grep', arguments: JSON.parse(args) }],
        ...model,
        usage,
        stopReason: 'toolUse',
        timestamp,
      },
      type: 'assistant/message',
      body: {
        content: [{ type: 'tool-call', id, name: 'grep', arguments: args }],
        finishReason: 'tool-calls',
        usage: spineUsage,
        model: model.model,
        provider: model.provider,
      },
    });
    entries.push({
      pi: {
        role: 'toolResult',
        toolCallId: id,
        toolName: 'grep',
        content: [{ type: 'text', text: output }],
        isError: false,
        timestamp,
      },
      type: 'tool/result',
      body: { toolCallId: id, toolName: 'grep', content: output, isError: false },
    });
    entries.push({
      pi: {
        role: 'assistant',
        content: [{ type: 'text', text: answer }],
        ...model,
        usage,
        stopReason: 'stop',
        timestamp,
      },
      type: 'assistant/message',
      body: {
        content: [{ type: 'text', text: answer }],
        finishReason: 'stop',
        usage: spineUsage,
        model: model.model,
        provider: model.provider,
      },
    });
  }
  entries.length = count;
  return entries;
}

const dir = mkdtempSync(join(tmpdir(), 'spine-peers-append-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

function runPi(entries: readonly Entry[], round: number): number {
  const sessionDir = join(dir, `pi-${round}`);
  mkdirSync(sessionDir);
  const start = performance.now();
  const manager = SessionManager.create(dir, sessionDir);
  for (const entry of entries) manager.appendMessage(entry.pi as never);
  const ms = performance.now() - start;
  rmSync(sessionDir, { recursive: true, force: true });
  return ms;
}

async function runSpine(entries: readonly Entry[], round: number): Promise<number> {
  const store = createJsonlStore({ dir, fsync: 'never' });
  const start = performance.now();
  const session = await Session.create({ store, id: `spine-${round}`, snapshots: false });
  const append = { surfaceOp: { op: 'append' as const } };
  for (const entry of entries) session.append(entry.type, entry.body as never, append);
  await session.close();
  const ms = performance.now() - start;
  rmSync(join(dir, `spine-${round}.jsonl`), { force: true });
  return ms;
}

const results: Record<string, unknown> = {};
const checks: BenchCheck[] = [];
for (const count of sizes) {
  const entries = corpus(count);
  const pi: number[] = [];
  const spine: number[] = [];
  const ratios: number[] = [];
  const rounds = roundsFor(count);
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      pi.push(runPi(entries, round));
      spine.push(await runSpine(entries, round));
    } else {
      spine.push(await runSpine(entries, round));
      pi.push(runPi(entries, round));
    }
    ratios.push(pi[round]! / spine[round]!);
    console.log(
      `${count} entries, round ${round + 1}/${rounds}: pi ${pi[round]!.toFixed(0)} ms, ` +
        `Spine ${spine[round]!.toFixed(0)} ms, ratio ${ratios[round]!.toFixed(2)} (load ${loadavg()[0]!.toFixed(1)})`,
    );
  }
  const check = judge(`pi time ÷ Spine time, ${count} entries`, ratios, { atLeast: TARGET });
  checks.push(check);
  const rate = (ms: number[]) => Math.round(count / (median(ms) / 1000));
  console.log(
    `${count} entries: pi ${rate(pi)} entries/s, Spine ${rate(spine)} entries/s, Spine ÷ pi ` +
      `${check.figure}x [${check.interval.join(', ')}] (target ≥ ${TARGET})`,
  );
  results[`entries${count}`] = {
    piEntriesPerSecond: rate(pi),
    spineEntriesPerSecond: rate(spine),
    rounds,
  };
}
printReport({
  bench: 'peers/append',
  checks,
  figures: {
    peer: '@mariozechner/pi-coding-agent@0.73.1',
    ...results,
    load: +loadavg()[0]!.toFixed(1),
  },
});
