// The REPL's streaming path: a 200 KB Markdown answer in 20-byte chunks through
// createMarkdownStream, with the unfinished block previewed in the live region (SubagentPanel on a
// terminal) and fenced code highlighted (highlight.js, 256 colours). Chunks arrive as fast as the
// loop runs, so the preview is drawn with the committed lines (its own redraws wait 50 ms).
// The preview is rendered Markdown, as the finished block will look.
// Checked: bytes written to the terminal against the bytes of the final rendered output (<= 1.5),
// and a 10× longer answer's CPU time against this one's, per interleaved round (<= 12).
import { childMonitorFor } from '@spine/harness';
import type { SessionLog } from '@spine/protocol';
import {
  interleave,
  judge,
  medianTimes,
  printReport,
  ratioCheck,
} from '../../../scripts/lib/bench-interleave.js';
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
let smallBytes = 0;
// Baseline and subject round by round, the order alternating (scripts/lib/bench-interleave.ts),
// so a load spike on a shared machine hits both alike; the ratio is each round's own.
const samples = await interleave({
  sides: {
    small: () => {
      const run = stream(small);
      smallBytes = run.bytes;
      return run.ms;
    },
    large: () => stream(large).ms,
  },
  rounds: 5,
  warmup: 1,
});
const finalBytes = Buffer.byteLength(`${renderMarkdown(small, OPTIONS).join('\n')}\n`);
printReport({
  bench: 'tui/live-preview',
  figures: {
    answerKB: Math.round(small.length / 1000),
    chunkBytes: 20,
    highlighted: true,
    cpuMs: medianTimes(samples),
    bytesWritten: smallBytes,
    finalRenderedBytes: finalBytes,
  },
  checks: [
    judge('bytes written ÷ final rendered bytes', [smallBytes / finalBytes], { atMost: 1.5 }),
    ratioCheck(samples, 'large', 'small', { atMost: 12 }, { name: '10× answer ÷ answer (CPU)' }),
  ],
});
