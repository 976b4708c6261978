// Lines of the subagent panel: a child's figures, a text cut to fit one terminal row, and the
// synchronized update each redraw is written in.

import type { ChildState } from '@spine/harness';
import { graphemes, graphemeWidth } from './markdown/width.js';

/** `ms` as `14s` or `2m05s`. */
function seconds(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/**
 * Cuts `text` to at most `width` terminal columns, with an ellipsis when cut: a panel line that
 * wrapped would take two rows, and the next redraw would lift one row too few.
 */
export function fit(text: string, width: number): string {
  let used = 0;
  let out = '';
  const chars = graphemes(text);
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index] as string;
    const next = used + graphemeWidth(char);
    // Room for the ellipsis unless this is the last character and it fits.
    if (next > width - 1 && !(index === chars.length - 1 && next <= width)) return `${out}…`;
    out += char;
    used = next;
  }
  return out;
}

/** The step it is in and elapsed time (`step 2 · 14s`); once it ended, its steps (`3 steps · 20s`). */
export function figures(child: ChildState, now: number): string {
  const elapsed = seconds((child.ended?.at ?? now) - child.startedAt);
  if (!child.ended) return `step ${child.steps + 1} · ${elapsed}`;
  return `${child.steps} step${child.steps === 1 ? '' : 's'} · ${elapsed}`;
}

/** Start and end of a synchronized update (DEC mode 2026): the terminal shows the result at once. */
const SYNC_START = '\x1b[?2026h';
const SYNC_END = '\x1b[?2026l';

/** `lift` then `text` as one synchronized update when anything is lifted or drawn in place. */
export function synchronized(lift: string, text: string): string {
  return lift === '' && text === '' ? '' : `${SYNC_START}${lift}${text}${SYNC_END}`;
}
