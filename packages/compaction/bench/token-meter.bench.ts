// Token meter cost after one append: a 100k-event session versus a 1k-event session (target:
// ≤ 2×, since counts are cached per event and the sum is kept incrementally), and raw tokenizer
// throughput in tokens/s on ~1 MB of real text (source files and READMEs from node_modules).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMemoryStore, Session } from '@spine/session-log';
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

async function appendCost(events: number): Promise<{ medianUs: number; p90Us: number }> {
  const session = await sessionOf(events);
  const meter = createTokenMeter();
  const input = { session, system: 'You are a coding agent.', tools: [] };
  meter.measure(input);
  const samples: number[] = [];
  for (let index = 0; index < ITERATIONS; index++) {
    session.append(
      'user/message',
      { content: `follow-up ${index}: and the lexer too`, source: 'user' },
      { surfaceOp: { op: 'append' } },
    );
    const start = process.hrtime.bigint();
    meter.measure(input);
    samples.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  samples.sort((a, b) => a - b);
  return {
    medianUs: samples[Math.floor(samples.length / 2)] as number,
    p90Us: samples[Math.floor(samples.length * 0.9)] as number,
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
  const small = await appendCost(1_000);
  console.log(
    `measure after one append, 1k events: median ${small.medianUs.toFixed(1)} µs, p90 ${small.p90Us.toFixed(1)} µs`,
  );
  const large = await appendCost(100_000);
  console.log(
    `measure after one append, 100k events: median ${large.medianUs.toFixed(1)} µs, p90 ${large.p90Us.toFixed(1)} µs`,
  );
  const ratio = large.medianUs / small.medianUs;
  console.log(`ratio 100k / 1k: ${ratio.toFixed(2)} (target ≤ 2)`);

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
  console.log(
    JSON.stringify({
      bench: 'compaction/token-meter',
      medianUs1k: Number(small.medianUs.toFixed(2)),
      medianUs100k: Number(large.medianUs.toFixed(2)),
      ratio: Number(ratio.toFixed(3)),
      tokensPerSecond: throughput,
      pass: ratio <= 2,
    }),
  );
}

await main();
