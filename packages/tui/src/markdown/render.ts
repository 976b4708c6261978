// Markdown to terminal lines: marked's lexer, Spine's own ANSI renderer.

import { visibleText } from '@spine/protocol';
import { Lexer, type Token, type Tokens, type TokensList } from 'marked';
import type { Style } from '../style.js';
import type { CodeHighlighter } from './highlight.js';
import {
  type InlineContext,
  type MarkdownStyle,
  markdownStyle,
  renderInline,
  safe,
} from './inline.js';
import { renderTable } from './table.js';
import { hardWrap, wrapRows, wrapStyled } from './wrap.js';

/** Options of {@link renderMarkdown}. */
export interface MarkdownOptions {
  /**
   * Columns to wrap to (default 80; at least 10 is used). A function is asked again for each
   * block a stream commits, so blocks finished after a terminal resize fit its new width.
   */
  width?: number | (() => number);
  /** Styles, usually from `styleFor(stream)`: with colour off the output has no escape sequence. */
  style: Style;
  /** Links as OSC 8 hyperlinks (when colour is on); otherwise `text (url)`. Default false. */
  hyperlinks?: boolean;
  /**
   * Highlights fenced code with a language (from {@link loadCodeHighlighter}); without it, or for
   * a language it does not know, code is shown plain. Only used when colour is on.
   */
  highlight?: CodeHighlighter;
}

/** Internal rendering context. */
export interface RenderContext extends InlineContext {
  style: MarkdownStyle;
  highlight?: CodeHighlighter | undefined;
}

/** The rendering context for `options`. */
export function renderContext(options: MarkdownOptions): RenderContext {
  const style = markdownStyle(options.style);
  return {
    style,
    hyperlinks: options.hyperlinks === true,
    highlight: style.on ? options.highlight : undefined,
  };
}

/** The width actually used for `options`. */
export function renderWidth(options: MarkdownOptions): number {
  const width = typeof options.width === 'function' ? options.width() : options.width;
  return Math.max(10, Math.floor(width || 80));
}

function prefixed(lines: string[], first: string, rest: string): string[] {
  return lines.map((line, i) =>
    line === '' && i > 0 ? rest.trimEnd() : (i === 0 ? first : rest) + line,
  );
}

function codeBlock(token: Tokens.Code, width: number, ctx: RenderContext): string[] {
  const highlighted = token.lang ? ctx.highlight?.(token.text, token.lang) : undefined;
  if (highlighted) {
    const rows = highlighted.flatMap((line) => wrapRows(line, width - 4));
    return [
      ctx.style.dim(`  ${safe(token.lang ?? '')}`),
      ...rows.map((row) => (row === '' ? '' : `    ${row}`)),
    ];
  }
  const text = visibleText(token.text, { keepLineBreaks: true }).replace(/\t/g, '    ');
  const lines = text.split('\n').flatMap((line) => hardWrap(line, width - 4));
  const label = token.lang ? [ctx.style.dim(`  ${safe(token.lang)}`)] : [];
  return [...label, ...lines.map((line) => (line === '' ? '' : `    ${ctx.style.dim(line)}`))];
}

function listBlock(token: Tokens.List, width: number, ctx: RenderContext): string[] {
  const start = typeof token.start === 'number' ? token.start : 1;
  const markers = token.items.map((_, i) =>
    token.ordered ? `${start + i}.` : ctx.style.on ? '•' : '-',
  );
  const markerWidth = Math.max(...markers.map((m) => m.length)) + 1;
  const lines: string[] = [];
  token.items.forEach((item, i) => {
    if (i > 0 && token.loose) lines.push('');
    const box = item.task ? (item.checked ? '[x] ' : '[ ] ') : '';
    const marker = `${(markers[i] ?? '').padEnd(markerWidth)}${box}`;
    const inner = renderBlocks(item.tokens, width - marker.length, ctx, !item.loose);
    const body = inner.length ? inner : [''];
    lines.push(...prefixed(body, marker, ' '.repeat(marker.length)));
  });
  return lines;
}

function block(token: Token, width: number, ctx: RenderContext): string[] {
  const { style } = ctx;
  switch (token.type) {
    case 'space':
    case 'def':
      return [];
    case 'heading': {
      const hashes = style.dim(`${'#'.repeat(token.depth)} `);
      const text = renderInline(token.tokens ?? [], ctx);
      const styled = token.depth === 1 ? style.bold(style.underline(text)) : style.bold(text);
      return prefixed(
        wrapStyled(styled, width - token.depth - 1),
        hashes,
        ' '.repeat(token.depth + 1),
      );
    }
    case 'paragraph':
    case 'text':
      return wrapStyled(
        'tokens' in token && token.tokens ? renderInline(token.tokens, ctx) : safe(token.text),
        width,
      );
    case 'code':
      return codeBlock(token as Tokens.Code, width, ctx);
    case 'hr':
      return [style.dim('─'.repeat(Math.min(width, 40)))];
    case 'blockquote': {
      const bar = style.on ? style.dim('│ ') : '> ';
      return prefixed(renderBlocks(token.tokens ?? [], width - 2, ctx, false), bar, bar);
    }
    case 'list':
      return listBlock(token as Tokens.List, width, ctx);
    case 'table':
      return renderTable(token as Tokens.Table, width, ctx);
    default:
      return wrapStyled(safe(String('raw' in token ? token.raw : '').trim()), width);
  }
}

/**
 * Renders block tokens to lines, a blank line between blocks unless `tight` (a tight list
 * item's paragraph and its nested list).
 */
export function renderBlocks(
  tokens: readonly Token[],
  width: number,
  ctx: RenderContext,
  tight: boolean,
): string[] {
  const lines: string[] = [];
  let first = true;
  for (const token of tokens) {
    const rendered = block(token, Math.max(4, width), ctx);
    if (rendered.length === 0) continue;
    if (!first && !tight) lines.push('');
    lines.push(...rendered);
    first = false;
  }
  return lines;
}

/**
 * marked's block tokens for `text` (GFM on); `links` are reference definitions seen earlier
 * (a stream's committed text), and the ones found are added to it.
 */
export function lexMarkdown(text: string, links: TokensList['links'] = {}): TokensList {
  const lexer = new Lexer({ gfm: true });
  Object.assign(lexer.tokens.links, links);
  const tokens = lexer.lex(text);
  Object.assign(links, tokens.links);
  return tokens;
}

/**
 * Renders Markdown for a terminal: headings, emphasis, strike-through, lists (nested, numbered,
 * tasks), block quotes, code, links (OSC 8 or `text (url)`), rules and tables, wrapped to
 * `width` by display width. Model text is escaped with `visibleText` before it is styled, so
 * control and escape sequences in it stay inert; with colour off there is no escape sequence.
 *
 * @example
 * ```ts
 * import { renderMarkdown, styleFor } from '@spine/tui';
 * const lines = renderMarkdown('# Title\n\nSome *text*.', { width: 60, style: styleFor(process.stdout) });
 * process.stdout.write(`${lines.join('\n')}\n`);
 * ```
 */
export function renderMarkdown(text: string, options: MarkdownOptions): string[] {
  return renderBlocks(
    lexMarkdown(text.replace(/\r\n?/g, '\n')),
    renderWidth(options),
    renderContext(options),
    false,
  );
}
