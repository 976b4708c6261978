// GFM tables laid out by display width; cells wrap inside their column. A table that cannot fit
// even wrapped (too many columns for the width) is printed as its raw Markdown lines.

import { visibleText } from '@spine/protocol';
import type { Tokens } from 'marked';
import { type InlineContext, renderInline } from './inline.js';
import { displayWidth } from './width.js';
import { wrapStyled } from './wrap.js';

const SEPARATOR = ' │ ';
const MIN_COLUMN = 3;

function pad(text: string, width: number, align: 'center' | 'left' | 'right' | null): string {
  const gap = Math.max(0, width - displayWidth(text));
  if (align === 'right') return ' '.repeat(gap) + text;
  if (align === 'center') {
    const left = Math.floor(gap / 2);
    return ' '.repeat(left) + text + ' '.repeat(gap - left);
  }
  return text + ' '.repeat(gap);
}

/** Column widths that fit `available` columns, or undefined when even the minimum does not. */
function fitColumns(natural: number[], available: number): number[] | undefined {
  if (natural.length * MIN_COLUMN > available) return undefined;
  const widths = natural.map((w) => Math.max(1, w));
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > available) {
    let widest = 0;
    for (let i = 1; i < widths.length; i++)
      if ((widths[i] ?? 0) > (widths[widest] ?? 0)) widest = i;
    const excess = total - available;
    const second = Math.max(MIN_COLUMN, ...widths.filter((_, i) => i !== widest));
    const cut = Math.max(1, Math.min(excess, (widths[widest] ?? 0) - second));
    widths[widest] = (widths[widest] ?? 0) - cut;
    total -= cut;
  }
  return widths;
}

function rowLines(cells: string[], widths: number[], align: Tokens.Table['align']): string[] {
  const wrapped = cells.map((cell, i) => wrapStyled(cell, widths[i] ?? 1));
  const height = Math.max(1, ...wrapped.map((w) => w.length));
  const lines: string[] = [];
  for (let row = 0; row < height; row++) {
    const parts = wrapped.map((w, i) => pad(w[row] ?? '', widths[i] ?? 1, align[i] ?? null));
    lines.push(parts.join(SEPARATOR).trimEnd());
  }
  return lines;
}

/** Renders a GFM table token to lines at most `width` columns wide (or its raw lines). */
export function renderTable(token: Tokens.Table, width: number, ctx: InlineContext): string[] {
  const header = token.header.map((cell) => ctx.style.bold(renderInline(cell.tokens, ctx)));
  const rows = token.rows.map((row) => row.map((cell) => renderInline(cell.tokens, ctx)));
  const columns = header.length;
  const natural = header.map((h, i) =>
    Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ''))),
  );
  const widths = fitColumns(natural, width - SEPARATOR.length * (columns - 1));
  if (widths === undefined) {
    return token.raw
      .replace(/\n+$/, '')
      .split('\n')
      .map((line) => visibleText(line));
  }
  const rule = ctx.style.dim(widths.map((w) => '─'.repeat(w)).join('─┼─'));
  return [
    ...rowLines(header, widths, token.align),
    rule,
    ...rows.flatMap((r) => rowLines(r, widths, token.align)),
  ];
}
