// Rendering an edit approval's diff: a 2,000-line file with 50 scattered one-line edits, rendered
// with colours and word-level highlights at width 80, capped at 40 lines as the prompt shows it,
// and in full (what `v` prints). Target: the capped render ≤ 50 ms (median of 30 runs).
import { renderDiff } from '../src/diff/render.js';
import { styleFor } from '../src/style.js';

const LINES = 2000;
const EDITS = 50;
const RUNS = 30;

const before = Array.from(
  { length: LINES },
  (_, i) => `  const value${i} = compute(${i}, "item-${i}") + offset; // line ${i}`,
);
const after = before.slice();
for (let k = 0; k < EDITS; k++) {
  const at = Math.floor(((k + 0.5) * LINES) / EDITS);
  after[at] = `  const value${at} = computeFaster(${at}, "item-${at}") - offset; // edited`;
}
const preview = {
  kind: 'edit' as const,
  path: 'src/big.ts',
  before: `${before.join('\n')}\n`,
  after: `${after.join('\n')}\n`,
};
const style = styleFor({ isTTY: true }, {});

function median(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function time(maxLines: number | undefined): number[] {
  const out: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const shown = renderDiff(preview, { style, width: 80, ...(maxLines ? { maxLines } : {}) });
    out.push(performance.now() - started);
    if (shown.added !== EDITS || shown.removed !== EDITS) throw new Error('wrong diff');
  }
  return out;
}

time(40); // warm-up
const capped = time(40);
const full = time(undefined);
const round1 = (n: number): number => Math.round(n * 10) / 10;
const cappedMs = median(capped);
console.log(
  `capped render (40 lines): median ${round1(cappedMs)} ms; full render: median ${round1(median(full))} ms`,
);
console.log(
  JSON.stringify({
    bench: 'tui-approval-diff',
    lines: LINES,
    edits: EDITS,
    cappedRenderMs: round1(cappedMs),
    cappedRenderMinMs: round1(Math.min(...capped)),
    fullRenderMs: round1(median(full)),
    targets: { cappedRenderMs: '<= 50' },
    pass: cappedMs <= 50,
  }),
);
