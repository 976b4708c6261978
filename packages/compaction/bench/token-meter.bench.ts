// Token meter cost after one append: a 100k-event session versus a 1k-event session (target:
// ≤ 2×, since counts are cached per event and the sum is kept incrementally), and raw tokenizer
// throughput in tokens/s on ~1 MB of real text (source files and READMEs from node_modules).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMemoryStore, Session } from '@spine/session-log';
import {
  interleave,
  medianTimes,
  printReport,
  ratioCheck,
} from '../../../scripts/lib/bench-interleave.js';
import { createTokenMeter } from '../src/token-meter.js';
import type { TokenizerName } from '../src/tokenizer.js';
import { resolveTokenizer } from '../src/tokenizer.js';

const ITERATIONS = 2000;

async function sessionOf(events: number): Promise<Session> {
  const session = await Session.create({ store: createMemoryStore() });
  for (let index = 0; index < events; index++) {
    session.append(
      'user/message',
      {
        content: `message ${index}: read src/module-${index % 97}.ts and fix the parser`,
        source: 'user',
      },
      { surfaceOp: { op: 'append' } },
    );
  }
  return session;
}

/** One side: a session of `events` events; each call appends one message and times the meter. */
async function appendSide(events: number): Promise<() => number> {
  const session = await sessionOf(events);
  const meter = createTokenMeter();
  const input = { session, system: 'You are a coding agent.', tools: [] };
  meter.measure(input);
  let index = 0;
  return () => {
    session.append(
      'user/message',
      { content: `follow-up ${index++}: and the lexer too`, source: 'user' },
      { surfaceOp: { op: 'append' } },
    );
    const start = performance.now();
    meter.measure(input);
    return performance.now() - start;
  };
}

function corpus(bytes: number): string {
  const root = join(import.meta.dirname, '../../../node_modules');
  const parts: string[] = [];
  let size = 0;
  for (const name of readdirSync(root).sort()) {
    for (const file of ['README.md', 'index.js', 'LICENSE']) {
      try {
        const text = readFileSync(join(root, name, file), 'utf8');
        parts.push(text);
        size += text.length;
      } catch {
        // Not every package has every file.
      }
      if (size >= bytes) return parts.join('\n').slice(0, bytes);
    }
  }
  return parts.join('\n');
}

async function main(): Promise<void> {
  // Both sessions interleaved round by round (scripts/lib/bench-interleave.ts): the figure is
  // the median of the per-round ratios 100k ÷ 1k, judged on its 90% interval.
  const samples = await interleave({
    sides: { small: await appendSide(1_000), large: await appendSide(100_000) },
    rounds: ITERATIONS,
    warmup: 100,
    gc: false,
  });
  const check = ratioCheck(samples, 'large', 'small', { atMost: 2 }, { name: '100k ÷ 1k events' });
  const us = (ms: number): number => Number((ms * 1000).toFixed(2));
  const ms = medianTimes(samples);
  console.log(
    `measure after one append: 1k events ${us(ms.small)} µs, 100k events ${us(ms.large)} µs (medians)`,
  );

  const text = corpus(1_000_000);
  const throughput: Record<string, number> = {};
  for (const name of ['o200k', 'cl100k', 'deepseek-v3'] as TokenizerName[]) {
    const tokenizer = resolveTokenizer(name);
    const sample = name === 'deepseek-v3' ? text.slice(0, 300_000) : text;
    let tokens = 0;
    let seconds = Number.POSITIVE_INFINITY;
    for (let run = 0; run < 3; run++) {
      const start = performance.now();
      tokens = tokenizer.count(sample);
      seconds = Math.min(seconds, (performance.now() - start) / 1000);
    }
    throughput[name] = Math.round(tokens / seconds);
    console.log(
      `${name}: ${tokens} tokens of ${sample.length} chars in ${(seconds * 1000).toFixed(0)} ms (best of 3) = ${(tokens / seconds / 1e6).toFixed(2)} M tokens/s`,
    );
  }
  printReport({
    bench: 'compaction/token-meter',
    checks: [check],
    figures: {
      medianUs1k: us(ms.small),
      medianUs100k: us(ms.large),
      ratio: check.figure,
      ratio90: check.interval,
      tokensPerSecond: throughput,
    },
  });
}

await main();
