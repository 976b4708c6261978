// Streaming Markdown rendering of a long answer arriving in 20-byte chunks (createMarkdownStream).
// Issue targets: bytes written ≤ 1.5× the bytes of rendering the final text once (nothing is
// redrawn), and a 10× longer answer (2 MB) ≤ 12× the time of the 200 KB one (linear, no
// re-rendering of what is already committed). The answer mixes every block kind, including
// 200-line code fences. Times are the minimum over rounds, after warm-up.
import { performance } from 'node:perf_hooks';
import { createMarkdownStream, renderMarkdown } from '../src/index.js';
import { styleFor } from '../src/style.js';
import { answer } from './answer.js';

const STYLE = styleFor({ isTTY: true }, {});
const OPTIONS = { width: 100, style: STYLE, hyperlinks: true };

function stream(text: string): { ms: number; bytes: number } {
  const started = performance.now();
  const md = createMarkdownStream(OPTIONS);
  let bytes = 0;
  const write = (lines: string[]): void => {
    for (const line of lines) bytes += Buffer.byteLength(line) + 1;
  };
  for (let i = 0; i < text.length; i += 20) write(md.push(text.slice(i, i + 20)));
  write(md.end());
  return { ms: performance.now() - started, bytes };
}

function best(text: string, rounds: number): { ms: number; bytes: number } {
  let result = stream(text);
  for (let r = 1; r < rounds; r++) {
    const next = stream(text);
    if (next.ms < result.ms) result = next;
  }
  return result;
}

const small = answer(200_000);
const large = answer(2_000_000);
stream(small); // warm-up
const smallRun = best(small, 5);
const largeRun = best(large, 2);
const finalBytes = Buffer.byteLength(`${renderMarkdown(small, OPTIONS).join('\n')}\n`);
const bytesRatio = smallRun.bytes / finalBytes;
const timeRatio = largeRun.ms / smallRun.ms;
const round1 = (n: number): number => Math.round(n * 10) / 10;
console.log(
  JSON.stringify({
    bench: 'tui/markdown',
    answerKB: Math.round(small.length / 1000),
    chunkBytes: 20,
    streamMs: round1(smallRun.ms),
    streamMs10x: round1(largeRun.ms),
    bytesWritten: smallRun.bytes,
    finalRenderedBytes: finalBytes,
    bytesRatio: +bytesRatio.toFixed(3),
    timeRatio10x: +timeRatio.toFixed(2),
    targets: { bytesRatio: '<= 1.5', timeRatio10x: '<= 12' },
    pass: bytesRatio <= 1.5 && timeRatio <= 12,
  }),
);
