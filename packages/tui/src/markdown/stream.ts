// Streaming Markdown: blocks are rendered as soon as they are finished (a later block has begun),
// never before; a half-written code fence is never rendered as if it were closed.

import type { Token, TokensList } from 'marked';
import {
  lexMarkdown,
  type MarkdownOptions,
  renderBlocks,
  renderContext,
  renderWidth,
} from './render.js';

/** A Markdown renderer fed a streamed answer chunk by chunk. */
export interface MarkdownStream {
  /** Adds `chunk`; returns the lines of the blocks this finished (often none). */
  push(chunk: string): string[];
  /** The answer is complete: returns the lines of what is left. The stream can then be reused. */
  end(): string[];
  /**
   * The text pushed but not yet rendered (the unfinished last block), as the model wrote it and
   * NOT terminal-safe: for a live region's preview, through `visibleText`.
   */
  pending(): string;
}

/** A fence opening the pending text: its run of backticks or tildes is group 2. */
const OPEN_FENCE = /^( {0,3})(`{3,}|~{3,})/;

/**
 * How many leading tokens are finished: those up to the last blank line that has a block after
 * it. Before a blank line nothing later can change them (a setext underline, a lazy continuation
 * line or a list item can reach back over lines, never over a blank line).
 */
function finishedCount(tokens: Token[]): number {
  let last = tokens.length - 1;
  while (last >= 0 && tokens[last]?.type === 'space') last--;
  for (let j = last - 1; j >= 0; j--) {
    const token = tokens[j] as Token;
    if (token.type === 'space' || token.raw.endsWith('\n\n')) return j + 1;
  }
  return 0;
}

/**
 * A Markdown renderer for streamed text: `push` returns the rendered lines of every block that
 * is now finished, `end` the rest. Together they are the lines {@link renderMarkdown} gives for
 * the whole text (a link reference definition applies only to links after it).
 *
 * @example
 * ```ts
 * import { createMarkdownStream, styleFor } from '@spine/tui';
 * const md = createMarkdownStream({ width: 80, style: styleFor(process.stdout) });
 * for (const chunk of ['# Ti', 'tle\n\nSome *te', 'xt*.\n']) {
 *   for (const line of md.push(chunk)) process.stdout.write(`${line}\n`);
 * }
 * for (const line of md.end()) process.stdout.write(`${line}\n`);
 * ```
 */
export function createMarkdownStream(options: MarkdownOptions): MarkdownStream {
  const ctx = renderContext(options);
  let pending = '';
  // Cheap views of the pending text, so a push does not scan (and flatten) all of it.
  let head = ''; // its first characters, to see whether it opens a fence
  let line = ''; // its last, unfinished line
  let started = false;
  let carriageReturn = false;
  let links: TokensList['links'] = {};

  const render = (tokens: Token[]): string[] => {
    const lines = renderBlocks(tokens, renderWidth(options), ctx, false);
    if (lines.length === 0) return lines;
    const out = started ? ['', ...lines] : lines;
    started = true;
    return out;
  };

  const normalise = (chunk: string): string => {
    let text = (carriageReturn && chunk.startsWith('\n') ? chunk.slice(1) : chunk).replace(
      /\r\n?/g,
      '\n',
    );
    carriageReturn = chunk.endsWith('\r');
    if (carriageReturn) text = `${text.slice(0, -1)}\n`;
    return text;
  };

  return {
    push(chunk) {
      const text = normalise(chunk);
      pending += text;
      if (head.length < 16) head = (head + text).slice(0, 16);
      const recent = line + text;
      const newline = recent.lastIndexOf('\n');
      line = recent.slice(newline + 1);
      // Blocks only finish at a line end: no need to look before one arrives.
      if (newline < 0) return [];
      // Inside an open fence nothing finishes before a line with its closing run (linear time).
      const fence = OPEN_FENCE.exec(head)?.[2];
      if (fence !== undefined && !recent.includes(fence)) return [];
      // Only complete lines: a partial last line may still change what the line before it is.
      const complete = pending.slice(0, pending.length - line.length);
      const tokens = lexMarkdown(complete, { ...links });
      const done = tokens.slice(0, finishedCount(tokens));
      if (done.length === 0) return [];
      const consumed = done.map((t) => t.raw).join('');
      // Only commit when the tokens account exactly for the start of the text.
      if (!pending.startsWith(consumed)) return [];
      pending = pending.slice(consumed.length);
      head = pending.slice(0, 16);
      for (const token of done) {
        if (token.type === 'def') links[token.tag] = { href: token.href, title: token.title };
      }
      return render(done);
    },
    pending: () => pending,
    end() {
      const tokens = lexMarkdown(pending, links);
      pending = '';
      head = '';
      line = '';
      links = {};
      carriageReturn = false;
      const lines = render(tokens);
      started = false;
      return lines;
    },
  };
}
