// Inline Markdown (emphasis, code spans, links...) to styled text. Every piece of model text is
// made terminal-safe with visibleText before any style is wrapped around it.

import { visibleText } from '@spine/protocol';
import type { Token, Tokens } from 'marked';
import type { Style } from '../style.js';

/** The styles the Markdown renderer uses; all identity functions when colour is off. */
export interface MarkdownStyle extends Style {
  /** Whether any escape sequence may be written. */
  readonly on: boolean;
  /** Italic text. */
  italic(text: string): string;
  /** Struck-through text. */
  strike(text: string): string;
  /** Underlined text. */
  underline(text: string): string;
}

const sgr = (open: number, close: number) => (text: string) =>
  text === '' ? '' : `\u001b[${open}m${text}\u001b[${close}m`;

/** Extends a {@link Style} from `styleFor` with italic, strike-through and underline. */
export function markdownStyle(style: Style): MarkdownStyle {
  const on = style.bold('x') !== 'x';
  const plain = (text: string): string => text;
  return {
    ...style,
    on,
    italic: on ? sgr(3, 23) : plain,
    strike: on ? sgr(9, 29) : plain,
    underline: on ? sgr(4, 24) : plain,
  };
}

const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

/** Decodes the HTML entities marked leaves in text (named basics and numeric ones). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? whole;
    const code =
      name[1] === 'x' || name[1] === 'X'
        ? Number.parseInt(name.slice(2), 16)
        : Number(name.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
  });
}

/** Model text made terminal-safe, soft line breaks as spaces. */
export function safe(text: string): string {
  return visibleText(decodeEntities(text).replace(/\r?\n/g, ' '));
}

/** A URL made safe to sit inside an OSC 8 sequence: only printable ASCII without spaces. */
function safeUrl(href: string): string {
  return href.replace(/[^\u0021-\u005b\u005d-\u007e]/gu, (char) => {
    try {
      return encodeURIComponent(char);
    } catch {
      return '%EF%BF%BD'; // a lone surrogate
    }
  });
}

/** Options for inline rendering. */
export interface InlineContext {
  /** Styles (identity when colour is off). */
  style: MarkdownStyle;
  /** Links as OSC 8 hyperlinks (only when colour is on). */
  hyperlinks: boolean;
}

function link(token: Tokens.Link, ctx: InlineContext): string {
  const label = renderInline(token.tokens ?? [], ctx);
  const href = token.href ?? '';
  if (ctx.hyperlinks && ctx.style.on && href !== '') {
    return `\u001b]8;;${safeUrl(href)}\u001b\\${ctx.style.underline(label)}\u001b]8;;\u001b\\`;
  }
  const shown = visibleText(href);
  return label === shown || shown === ''
    ? ctx.style.underline(label)
    : `${ctx.style.underline(label)} (${shown})`;
}

function inlineToken(token: Token, ctx: InlineContext): string {
  const { style } = ctx;
  switch (token.type) {
    case 'text':
      return 'tokens' in token && token.tokens ? renderInline(token.tokens, ctx) : safe(token.text);
    case 'escape':
      return safe(token.text);
    case 'strong':
      return style.bold(renderInline(token.tokens ?? [], ctx));
    case 'em':
      return style.italic(renderInline(token.tokens ?? [], ctx));
    case 'del':
      return style.on
        ? style.strike(renderInline(token.tokens ?? [], ctx))
        : `~~${renderInline(token.tokens ?? [], ctx)}~~`;
    case 'codespan':
      return style.on ? style.cyan(safe(token.text)) : `\`${safe(token.text)}\``;
    case 'link':
      return link(token as Tokens.Link, ctx);
    case 'image':
      return `[image: ${safe(token.text)}] (${visibleText(token.href ?? '')})`;
    case 'br':
      return '\n';
    default:
      return safe('raw' in token ? token.raw : '');
  }
}

/** Renders inline tokens to one styled string (`\n` only for hard breaks). */
export function renderInline(tokens: readonly Token[], ctx: InlineContext): string {
  let out = '';
  for (const token of tokens) out += inlineToken(token, ctx);
  return out;
}
