// The live preview of the Markdown block still being streamed, for a bounded live region: its
// last rows, rendered by the same renderer (and at the same width) as the finished block will be,
// so the block does not change look when it is committed; or, without styles, as the model wrote
// them (terminal-safe, hard-wrapped by display width). Only the block's tail is looked at.

import { visibleText } from '@spine/protocol';
import { type MarkdownOptions, renderMarkdown } from './render.js';
import { hardWrap } from './wrap.js';

/** Rows of the pending block a live region shows by default. */
export const PREVIEW_ROWS = 6;

/**
 * The last `rows` terminal rows of `pending` (the unfinished block of a Markdown stream) at
 * `width` columns: terminal-safe (line breaks and tabs kept, every other control shown as text),
 * each row at most `width` columns. With `styled` (the options the finished block is rendered
 * with) the rows are rendered Markdown instead, as the block will look once finished. Only the
 * tail of the text is looked at, so a long paragraph or code fence costs no more than a short one.
 *
 * @example
 * ```ts
 * import { markdownPreview } from '@spine/tui';
 * markdownPreview('A long paragraph that is still being writ', 20, 2);
 * // ['A long paragraph tha', 't is still being wri'] (the last two rows, at most 20 columns)
 * ```
 */
export function markdownPreview(
  pending: string,
  width: number,
  rows = PREVIEW_ROWS,
  styled?: Omit<MarkdownOptions, 'width'>,
): string[] {
  const columns = Math.max(1, Math.floor(width));
  const count = Math.max(0, Math.floor(rows));
  if (count === 0) return [];
  if (styled && columns >= 10) return renderedTail(pending, columns, count, styled);
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

/** A fence opening the block: the whole first line. */
const OPEN_FENCE = /^ {0,3}(?:`{3,}|~{3,})[^\n]*/;

/**
 * The last `count` rows of `pending` rendered as Markdown at `columns`. A code fence keeps its
 * opening line (the language, for highlighting) over the last lines of its body, so a long fence
 * costs no more than a short one; other blocks keep the text from a line start within a budget.
 */
function renderedTail(
  pending: string,
  columns: number,
  count: number,
  styled: Omit<MarkdownOptions, 'width'>,
): string[] {
  const fence = OPEN_FENCE.exec(pending)?.[0];
  let source: string;
  if (fence !== undefined) {
    const body = pending.slice(fence.length + 1);
    // Enough lines for `count` rows from the end (the last one may be partial).
    let start = body.length;
    for (let found = 0; found <= count && start > 0; found++)
      start = body.lastIndexOf('\n', start - 1);
    source = `${fence}\n${body.slice(start + 1)}`;
  } else {
    const budget = (count + 1) * columns * 6;
    const tail = pending.length > budget ? pending.slice(-budget) : pending;
    const cut = tail.length < pending.length ? tail.indexOf('\n') : -1;
    source = cut >= 0 ? tail.slice(cut + 1) : tail;
  }
  if (source.trim() === '') return [];
  return renderMarkdown(source, { ...styled, width: columns }).slice(-count);
}
