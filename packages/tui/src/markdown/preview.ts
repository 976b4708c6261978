// The live preview of the Markdown block still being streamed: its last rows as the model wrote
// them (terminal-safe, hard-wrapped by display width), for a bounded live region. The block is
// rendered for good once it is finished; the preview never styles a half-written construct.

import { visibleText } from '@spine/protocol';
import { hardWrap } from './wrap.js';

/** Rows of the pending block a live region shows by default. */
export const PREVIEW_ROWS = 6;

/**
 * The last `rows` terminal rows of `pending` (the unfinished block of a Markdown stream) at
 * `width` columns: terminal-safe (line breaks and tabs kept, every other control shown as text),
 * each row at most `width` columns. Only the tail of the text is looked at, so a long paragraph
 * costs no more than a short one.
 *
 * @example
 * ```ts
 * import { markdownPreview } from '@spine/tui';
 * markdownPreview('A long paragraph that is still being writ', 20, 2);
 * // ['A long paragraph tha', 't is still being wri'] (the last two rows, at most 20 columns)
 * ```
 */
export function markdownPreview(pending: string, width: number, rows = PREVIEW_ROWS): string[] {
  const columns = Math.max(1, Math.floor(width));
  const count = Math.max(0, Math.floor(rows));
  if (count === 0) return [];
  // Enough of the tail for `count` full rows (a grapheme takes at least one UTF-16 unit, and a
  // shown escape such as \x1b at most six): nothing earlier can reach the last rows.
  const budget = (count + 1) * columns * 6;
  const tail = pending.length > budget ? pending.slice(-budget) : pending;
  const cut = tail.length < pending.length ? tail.indexOf('\n') : -1;
  const text = visibleText(cut >= 0 ? tail.slice(cut + 1) : tail, { keepLineBreaks: true })
    .replace(/\t/g, '    ')
    .replace(/\n+$/, '');
  if (text.trim() === '') return [];
  const lines = text.split('\n');
  const shown: string[] = [];
  for (let i = lines.length - 1; i >= 0 && shown.length < count; i--) {
    const wrapped = hardWrap(lines[i] as string, columns);
    shown.unshift(...wrapped.slice(-(count - shown.length)));
  }
  return shown;
}
