// The REPL's streaming path: a 200 KB Markdown answer in 20-byte chunks through
// createMarkdownStream, with the unfinished block previewed in the live region (SubagentPanel on a
// terminal) and fenced code highlighted (highlight.js, 256 colours). Chunks arrive as fast as the
// loop runs, so the preview is drawn with the committed lines (its own redraws wait 50 ms).
// The preview is rendered Markdown, as the finished block will look.
// Reported: bytes written to the terminal against the bytes of the final rendered output, CPU time,
// and a 10× longer answer's time against this one's.
import { childMonitorFor } from '@spine/harness';
import type { SessionLog } from '@spine/protocol';
import {
  codePalette,
  createMarkdownStream,
  loadCodeHighlighter,
  renderMarkdown,
  SubagentPanel,
} from '../src/index.js';
import { styleFor } from '../src/style.js';
import { answer } from './answer.js';

const STYLE = styleFor({ isTTY: true }, {});
const highlight = await loadCodeHighlighter(codePalette(2, 'dark'));
if (!highlight) throw new Error('highlight.js is a dev dependency of @spine/tui: run npm install');
const OPTIONS = { width: 100, style: STYLE, hyperlinks: true, highlight };

function stream(text: string): { ms: number; bytes: number } {
  let bytes = 0;
  const out = {
    write(chunk: string) {
      bytes += Buffer.byteLength(chunk);
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  const monitor = childMonitorFor({ events: () => [], lastSeq: 0 } as unknown as SessionLog);
  const panel = new SubagentPanel(out, STYLE, monitor, {
    tty: true,
    columns: () => 100,
    markdown: { hyperlinks: true, highlight },
  });
  // CPU time of this process (all its threads, GC included), not wall time: on a machine shared
  // with other work, wall time measures the neighbours as much as the renderer.
  const started = process.cpuUsage();
  const md = createMarkdownStream(OPTIONS);
  const emit = (lines: string[]): void => {
    panel.preview(md.pending());
    if (lines.length > 0) panel.write(`${lines.join('\n')}\n`);
  };
  for (let i = 0; i < text.length; i += 20) emit(md.push(text.slice(i, i + 20)));
  emit(md.end());
  const used = process.cpuUsage(started);
  const ms = (used.user + used.system) / 1000;
  panel.dispose();
  return { ms, bytes };
}

const small = answer(200_000);
const large = answer(2_000_000);
stream(small); // warm-up
// Baseline and subject round by round, so a load spike on a shared machine hits both alike; the
// reported figures are the medians over the rounds (the ratio is each round's own).
const ROUNDS = 5;
const runs = Array.from({ length: ROUNDS }, () => {
  const smallRun = stream(small);
  const largeRun = stream(large);
  return { smallRun, largeRun, ratio: largeRun.ms / smallRun.ms };
});
const median = (values: number[]): number =>
  values.sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const smallRun = runs[0]?.smallRun as { ms: number; bytes: number };
const smallMs = median(runs.map((run) => run.smallRun.ms));
const largeMs = median(runs.map((run) => run.largeRun.ms));
const timeRatio = median(runs.map((run) => run.ratio));
const finalBytes = Buffer.byteLength(`${renderMarkdown(small, OPTIONS).join('\n')}\n`);
const bytesRatio = smallRun.bytes / finalBytes;
const round1 = (n: number): number => Math.round(n * 10) / 10;
console.log(
  JSON.stringify({
    bench: 'tui/live-preview',
    answerKB: Math.round(small.length / 1000),
    chunkBytes: 20,
    highlighted: true,
    rounds: ROUNDS,
    cpuMs: round1(smallMs),
    cpuMs10x: round1(largeMs),
    timeRatios10x: runs.map((run) => +run.ratio.toFixed(2)),
    bytesWritten: smallRun.bytes,
    finalRenderedBytes: finalBytes,
    bytesRatio: +bytesRatio.toFixed(3),
    timeRatio10x: +timeRatio.toFixed(2),
    targets: { bytesRatio: '<= 1.5', timeRatio10x: '<= 12' },
    pass: bytesRatio <= 1.5 && timeRatio <= 12,
  }),
);
