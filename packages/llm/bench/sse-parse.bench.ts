// Benchmark: parse a 10 MB recorded DeepSeek SSE stream from a loopback server with the
// DeepSeek client, against a baseline that only reads the same body with undici and
// JSON.parses each data line. Target (issue 3): client throughput >= 0.7 x baseline.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import {
  interleave,
  medianTimes,
  printReport,
  ratioCheck,
} from '../../../scripts/lib/bench-interleave.js';
import { createDeepSeekModel } from '../src/index.js';

const TARGET_BYTES = 10 * 1024 * 1024;
const ROUNDS = 31;

function fixtureLines(name: string): string[] {
  const path = fileURLToPath(new URL(`../test/fixtures/${name}`, import.meta.url));
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** Reasoning and content deltas of two recordings, repeated to 10 MB, then the real finish chunk. */
function buildBody(): Buffer {
  const reasoning = fixtureLines('deepseek-reasoning.chunks.txt');
  const tool = fixtureLines('deepseek-tool-call.chunks.txt');
  const finish = reasoning.at(-1) as string;
  const deltas = [...reasoning.slice(1, -1), ...tool.slice(1, 18)];
  const frames = deltas.map((line) => `data: ${line}\n\n`);
  const parts: string[] = [`data: ${reasoning[0]}\n\n`];
  let size = 0;
  for (let i = 0; size < TARGET_BYTES; i++) {
    const frame = frames[i % frames.length] as string;
    parts.push(frame);
    size += frame.length;
    if (i % 500 === 0) parts.push(': keep-alive\n\n');
  }
  parts.push(`data: ${finish}\n\n`, 'data: [DONE]\n\n');
  return Buffer.from(parts.join(''), 'utf8');
}

async function baseline(url: string): Promise<number> {
  const response = await request(`${url}/chat/completions`, { method: 'POST', body: '{}' });
  const decoder = new TextDecoder();
  let rest = '';
  let parsed = 0;
  for await (const chunk of response.body) {
    const text = rest + decoder.decode(chunk as Buffer, { stream: true });
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('data: ') && line !== 'data: [DONE]') {
        JSON.parse(line.slice(6));
        parsed++;
      }
    }
  }
  return parsed;
}

async function client(url: string): Promise<number> {
  const model = createDeepSeekModel({ baseUrl: url, apiKey: 'bench' });
  let events = 0;
  let finished = false;
  for await (const event of model.stream({
    model: 'deepseek-v4-flash',
    system: '',
    messages: [],
    tools: [],
  })) {
    events++;
    if (event.type === 'finish') finished = event.finishReason === 'stop';
  }
  if (!finished) throw new Error('the client did not finish the stream');
  return events;
}

/** CPU milliseconds (user + system) this process spent in `run`. */
async function cpuMs(run: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000;
}

async function main(): Promise<void> {
  const body = buildBody();
  console.log(`body: ${(body.length / 1024 / 1024).toFixed(1)} MB of SSE`);
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let samples: Record<'baseline' | 'client', number[]>;
  try {
    // Interleaved round by round (scripts/lib/bench-interleave.ts): the figure is the median of
    // the per-round throughput ratios client ÷ baseline, judged on its 90% interval. Throughput
    // is per CPU second of this process (server and reader both run here, the server's share is
    // the same for both sides): on a busy machine the wall time of a 100 ms read swings with
    // whoever else got the CPU, the work done does not.
    samples = await interleave({
      sides: { baseline: () => cpuMs(() => baseline(url)), client: () => cpuMs(() => client(url)) },
      rounds: ROUNDS,
      warmup: 1,
      onRound: (round, times) =>
        console.log(
          `round ${round + 1}/${ROUNDS}: baseline ${mbps(times.baseline).toFixed(1)} MB/CPU-s, client ${mbps(times.client).toFixed(1)} MB/CPU-s`,
        ),
    });
  } finally {
    server.close();
  }
  // Throughput ratio client ÷ baseline = time ratio baseline ÷ client.
  const check = ratioCheck(
    samples,
    'baseline',
    'client',
    { atLeast: 0.7 },
    { name: 'client ÷ baseline MB per CPU second' },
  );
  const ms = medianTimes(samples);
  printReport({
    bench: 'llm/sse-parse',
    checks: [check],
    figures: {
      bodyMB: Number((body.length / 1024 / 1024).toFixed(1)),
      baselineMBps: Number(mbps(ms.baseline).toFixed(1)),
      clientMBps: Number(mbps(ms.client).toFixed(1)),
      ratio: check.figure,
      ratio90: check.interval,
      target: 0.7,
    },
  });

  function mbps(ms: number): number {
    return body.length / 1024 / 1024 / (ms / 1000);
  }
}

await main();
