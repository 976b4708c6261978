// Tables: data tables are rebuilt into a regular grid that the Markdown rules turn into GFM;
// layout tables are unwrapped to their content; raw HTML only for a data grid holding tables.
import { all, type Document, type Element, textOf } from './dom.js';

/** How the tables of a page were rendered. */
export interface TableCounts {
  /** Data tables rendered as GFM tables. */
  gfm: number;
  /** Layout tables unwrapped to their content. */
  layout: number;
  /** Data tables kept as raw HTML (a grid of several data rows holding other tables). */
  raw: number;
}

/** Attribute marking a rebuilt data table; its value is the column count. */
export const GFM_TABLE = 'data-spine-gfm';
/** Attribute marking the header row of a rebuilt data table; its value is the column count. */
export const GFM_HEAD = 'data-spine-head';
/** Attribute marking a table kept as raw HTML. */
export const RAW_TABLE = 'data-spine-raw';

const isCell = (node: unknown): node is Element => {
  const tag = (node as Element).tagName;
  return tag === 'TD' || tag === 'TH';
};

function rowsOf(table: Element): Element[] {
  return all(table, 'tr').filter((row) => row.closest('table') === table);
}

function cellsOf(row: Element): Element[] {
  return (Array.from(row.children) as Element[]).filter(isCell);
}

function span(cell: Element, name: 'colspan' | 'rowspan'): number {
  const value = Number.parseInt(cell.getAttribute(name) ?? '1', 10);
  return Number.isFinite(value) && value > 1 ? Math.min(value, 100) : 1;
}

type Kind = 'data' | 'layout' | 'raw';

function classify(table: Element, rows: Element[]): Kind {
  const role = (table.getAttribute('role') ?? '').toLowerCase();
  if (role === 'presentation' || role === 'none' || table.getAttribute('datatable') === '0')
    return 'layout';
  const own = (selector: string): Element[] =>
    all(table, selector).filter((element) => element.closest('table') === table);
  const signals =
    table.hasAttribute('summary') || own('caption, thead, th, col, colgroup').length > 0;
  if (table.querySelector('table')) {
    // A header over a row of side-by-side tables is layout; a real grid holding tables (several
    // rows of data cells) cannot be a GFM table and stays HTML.
    const dataRows = rows.filter((row) => cellsOf(row).some((cell) => cell.tagName === 'TD'));
    return signals && dataRows.length > 2 ? 'raw' : 'layout';
  }
  const columns = Math.max(
    0,
    ...rows.map((row) => cellsOf(row).reduce((n, c) => n + span(c, 'colspan'), 0)),
  );
  if (rows.length === 0 || columns <= 1) return 'layout';
  if (signals) return 'data';
  if (rows.length === 1) return 'layout';
  // Cells holding headings or long passages are page layout, not data.
  const cells = rows.flatMap(cellsOf);
  if (cells.some((cell) => cell.querySelector('h1, h2, h3') || textOf(cell).length > 600))
    return 'layout';
  return 'data';
}

function unwrapLayout(document: Document, table: Element, rows: Element[]): void {
  const container = document.createElement('div') as Element;
  for (const caption of all(table, 'caption')) {
    if (caption.closest('table') !== table) continue;
    const paragraph = document.createElement('p') as Element;
    while (caption.firstChild) paragraph.appendChild(caption.firstChild);
    container.appendChild(paragraph);
  }
  for (const row of rows) {
    for (const cell of cellsOf(row)) {
      const block = document.createElement('div') as Element;
      while (cell.firstChild) block.appendChild(cell.firstChild);
      container.appendChild(block);
    }
  }
  table.replaceWith(container);
}

function rebuildData(document: Document, table: Element, rows: Element[]): void {
  const grid: Element[][] = [];
  const pending: number[] = [];
  for (const row of rows) {
    const out: Element[] = [];
    const take = (cell: Element): void => {
      out.push(cell);
    };
    const empty = (): Element => document.createElement('td') as Element;
    for (const cell of cellsOf(row)) {
      while ((pending[out.length] ?? 0) > 0) {
        pending[out.length] = (pending[out.length] ?? 1) - 1;
        take(empty());
      }
      const rowspan = span(cell, 'rowspan');
      const colspan = span(cell, 'colspan');
      const fresh = document.createElement(cell.tagName.toLowerCase()) as Element;
      while (cell.firstChild) fresh.appendChild(cell.firstChild);
      for (let index = 0; index < colspan; index++) {
        if (rowspan > 1) pending[out.length] = rowspan - 1;
        take(index === 0 ? fresh : empty());
      }
    }
    grid.push(out);
  }
  const columns = Math.max(...grid.map((row) => row.length));
  const header =
    rows[0] !== undefined &&
    (rows[0].parentElement?.tagName === 'THEAD' ||
      cellsOf(rows[0]).every((cell) => cell.tagName === 'TH'));
  const fresh = document.createElement('table') as Element;
  fresh.setAttribute(GFM_TABLE, String(columns));
  if (!header) grid.unshift([]);
  grid.forEach((cells, index) => {
    const row = document.createElement('tr') as Element;
    if (index === 0) row.setAttribute(GFM_HEAD, String(columns));
    for (const cell of cells) row.appendChild(cell);
    for (let pad = cells.length; pad < columns; pad++)
      row.appendChild(document.createElement('td'));
    fresh.appendChild(row);
  });
  const captions = all(table, 'caption').filter((caption) => caption.closest('table') === table);
  for (const caption of captions) {
    const paragraph = document.createElement('p') as Element;
    while (caption.firstChild) paragraph.appendChild(caption.firstChild);
    table.parentNode?.insertBefore(paragraph, table);
  }
  table.replaceWith(fresh);
}

function keepRaw(table: Element): void {
  for (const element of [table, ...all(table, '*')]) {
    for (const name of element.getAttributeNames()) {
      if (!['colspan', 'rowspan', 'href', 'src', 'alt'].includes(name))
        element.removeAttribute(name);
    }
  }
  table.setAttribute(RAW_TABLE, '');
}

/**
 * Prepares the tables under `root` for conversion, innermost first: data tables become regular
 * grids (spans filled with empty cells, a header row first) for the GFM rules, layout tables are
 * unwrapped (also a header over side-by-side tables), and a grid of several data rows holding
 * other tables is kept as raw HTML.
 */
export function prepareTables(document: Document, root: Element): TableCounts {
  const counts: TableCounts = { gfm: 0, layout: 0, raw: 0 };
  for (const table of all(root, 'table').reverse()) {
    if (!root.contains(table) || table.closest('pre')) continue;
    const rows = rowsOf(table);
    const kind = classify(table, rows);
    if (kind === 'layout') {
      unwrapLayout(document, table, rows);
      counts.layout++;
    } else if (kind === 'raw') {
      counts.gfm -= all(table, `table[${GFM_TABLE}]`).length; // now inside the raw HTML
      keepRaw(table);
      counts.raw++;
    } else {
      rebuildData(document, table, rows);
      counts.gfm++;
    }
  }
  return counts;
}
