// Streaming Markdown rendering of a long answer arriving in 20-byte chunks (createMarkdownStream).
// Issue targets: bytes written ≤ 1.5× the bytes of rendering the final text once (nothing is
// redrawn), and a 10× longer answer (2 MB) ≤ 12× the time of the 200 KB one (linear, no
// re-rendering of what is already committed). The answer mixes every block kind, including
// 200-line code fences. Times are the minimum over rounds, after warm-up.
import { performance } from 'node:perf_hooks';
import { createMarkdownStream, renderMarkdown } from '../src/index.js';
import { styleFor } from '../src/style.js';

const STYLE = styleFor({ isTTY: true }, {});
const OPTIONS = { width: 100, style: STYLE, hyperlinks: true };

const BLOCKS = [
  '## Section {i}\n',
  'A paragraph {i} with *emphasis*, **strong**, ~~old~~, `code` and a [link](https://example.com/{i}) that runs long enough to wrap at a hundred columns in the terminal, twice over if it can.\n',
  '- item {i}\n- [x] done {i}\n  1. nested {i}\n  2. again {i}\n',
  '| col | 説明 | n |\n|---|:-:|--:|\n| {i} | 漢字 👍🏽 e\u0301 | 42 |\n| more | text | 7 |\n',
  '```ts\nconst value{i} = {i};\nfunction f{i}() {\n  return value{i};\n}\n```\n',
  '> quoted {i} with **bold**\n> and a second line\n',
  `\`\`\`text\n${'a long log line {i} that goes on\n'.repeat(200)}\`\`\`\n`,
];

function answer(bytes: number): string {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const block = (BLOCKS[i % BLOCKS.length] as string).replaceAll('{i}', String(i));
    out.push(block);
    size += block.length + 1;
  }
  return out.join('\n');
}

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
