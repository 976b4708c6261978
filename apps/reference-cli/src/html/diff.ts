// Before/after text as a diff with word-level highlights, rendered through jsdiff.
import { diffLines, diffWordsWithSpace } from 'diff';
import { inert } from './escape.js';

/** Longest text diffed word by word; longer texts are diffed by line (word diffs are quadratic). */
const WORD_DIFF_LIMIT = 20_000;

/** `before` → `after` as HTML: removed words in `<del>`, added in `<ins>`, the rest as is. */
export function renderDiffHtml(before: string, after: string): string {
  const byWord = before.length + after.length <= WORD_DIFF_LIMIT;
  const parts = byWord ? diffWordsWithSpace(before, after) : diffLines(before, after);
  let html = '';
  for (const part of parts) {
    const text = inert(part.value);
    if (part.added) html += `<ins>${text}</ins>`;
    else if (part.removed) html += `<del>${text}</del>`;
    else html += text;
  }
  return `<pre class="diff">${html}</pre>`;
}
