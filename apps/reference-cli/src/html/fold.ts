// Large outputs folded: a preview, then the rest behind a <details> with its byte count. Past
// FOLD_KEEP_CHARS the rest is left out of the page and the count says how much.
import { escapeHtml, formatByteCount, inert } from './escape.js';

/** Characters shown before an output folds. */
export const FOLD_PREVIEW_CHARS = 2_000;
/** Characters of one output a page carries at most (the log keeps all of it). */
export const FOLD_KEEP_CHARS = 256 * 1024;

/** `text` in a `<pre>`, folded when longer than {@link FOLD_PREVIEW_CHARS}. */
export function foldedPre(text: string, className = 'out'): string {
  if (text.length <= FOLD_PREVIEW_CHARS) return `<pre class="${className}">${inert(text)}</pre>`;
  const bytes = Buffer.byteLength(text);
  const preview = text.slice(0, FOLD_PREVIEW_CHARS);
  const kept = text.slice(0, FOLD_KEEP_CHARS);
  const left = text.length > FOLD_KEEP_CHARS ? Buffer.byteLength(text.slice(FOLD_KEEP_CHARS)) : 0;
  const note =
    left > 0
      ? `<p class="mute">${escapeHtml(formatByteCount(left))} more not included in this page (spine show --events has all of it)</p>`
      : '';
  return `<pre class="${className}">${inert(preview)}…</pre><details class="fold"><summary>show all ${escapeHtml(formatByteCount(bytes))} (${bytes} bytes)</summary><pre class="${className}">${inert(kept)}</pre>${note}</details>`;
}
