// The turndown converter: fenced code with its language, GFM tables from the grids prepared by
// tables.ts with cell content flattened to inline Markdown, raw HTML only for marked tables.
import gfmModule from '@joplin/turndown-plugin-gfm';
import TurndownService from 'turndown';
import { GFM_HEAD, GFM_TABLE, RAW_TABLE } from './tables.js';

type Node = TurndownService.Node & {
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  parentNode: Node | null;
  textContent: string | null;
};

const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+/;

function inlineCode(text: string): string {
  const runs = text.match(/`+/g) ?? [];
  const fence = '`'.repeat(Math.max(0, ...runs.map((run) => run.length)) + 1);
  const padded = /^`|`$/.test(text) ? ` ${text} ` : text;
  return `${fence}${padded}${fence}`;
}

/** Flattens a cell's Markdown to one line: lists `; `-joined, other breaks as `<br>`, `|` escaped. */
export function flattenCell(markdown: string): string {
  const parts: string[] = [];
  for (const block of markdown.trim().split(/\n\s*\n/)) {
    const fence = /^(`{3,}|~{3,})[^\n]*\n([\s\S]*?)\n?\1$/.exec(block.trim());
    if (fence) {
      const code = (fence[2] ?? '').replace(/\s*\n\s*/g, ' ').trim();
      if (code) parts.push(inlineCode(code));
      continue;
    }
    const lines = block
      .split('\n')
      .map((line) => line.replace(/\s+$/, ''))
      .filter((line) => line.trim() !== '');
    if (lines.length === 0) continue;
    if (LIST_ITEM.test(lines[0] ?? '')) {
      const items: string[] = [];
      for (const line of lines) {
        if (LIST_ITEM.test(line)) items.push(line.replace(LIST_ITEM, '').trim());
        else items[items.length - 1] = `${items.at(-1) ?? ''} ${line.trim()}`.trim();
      }
      parts.push(items.join('; '));
      continue;
    }
    parts.push(
      lines
        .map((line) =>
          line
            .trim()
            .replace(/^#{1,6}\s+(.*)$/, '**$1**')
            .replace(/^>\s?/, ''),
        )
        .join('<br>'),
    );
  }
  return parts.join('<br>').replace(/\\?\|/g, '\\|');
}

function inGfmTable(node: Node): boolean {
  let parent = node.parentNode;
  while (parent && parent.nodeName !== 'TABLE') parent = parent.parentNode;
  return parent?.hasAttribute(GFM_TABLE) === true;
}

let converter: TurndownService | undefined;

/** One shared converter: turndown keeps no per-document state with inline links. */
export function markdownConverter(): TurndownService {
  if (converter) return converter;
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
  });
  service.use([gfmModule.strikethrough, gfmModule.taskListItems]);
  service.remove(['script', 'style', 'title', 'noscript', 'template']);
  service.addRule('spineCodeBlock', {
    filter: (node) => node.nodeName === 'PRE',
    replacement: (_content, node) => {
      const code = ((node as Node).textContent ?? '').replace(/\n$/, '');
      const language = (node as Node).getAttribute('data-spine-lang') ?? '';
      const runs = code.match(/^`{3,}/gm) ?? [];
      const fence = '`'.repeat(Math.max(3, ...runs.map((run: string) => run.length + 1)));
      return `\n\n${fence}${language}\n${code}\n${fence}\n\n`;
    },
  });
  service.addRule('spineRawTable', {
    filter: (node) => node.nodeName === 'TABLE' && (node as Node).hasAttribute(RAW_TABLE),
    replacement: (_content, node) => {
      const html = (node as unknown as { outerHTML: string }).outerHTML;
      return `\n\n${html.replace(` ${RAW_TABLE}=""`, '')}\n\n`;
    },
  });
  service.addRule('spineGfmTable', {
    filter: (node) => node.nodeName === 'TABLE' && (node as Node).hasAttribute(GFM_TABLE),
    replacement: (content) => `\n\n${content.replace(/\n+/g, '\n').trim()}\n\n`,
  });
  service.addRule('spineGfmSection', {
    filter: (node) =>
      ['THEAD', 'TBODY', 'TFOOT'].includes(node.nodeName) && inGfmTable(node as Node),
    replacement: (content) => content,
  });
  service.addRule('spineGfmRow', {
    filter: (node) => node.nodeName === 'TR' && inGfmTable(node as Node),
    replacement: (content, node) => {
      const row = `|${content}\n`;
      const columns = Number((node as Node).getAttribute(GFM_HEAD) ?? 0);
      return columns > 0 ? `${row}|${' --- |'.repeat(columns)}\n` : row;
    },
  });
  service.addRule('spineGfmCell', {
    filter: (node) =>
      (node.nodeName === 'TD' || node.nodeName === 'TH') && inGfmTable(node as Node),
    replacement: (content) => {
      const flat = flattenCell(content);
      return flat ? ` ${flat} |` : '  |';
    },
  });
  converter = service;
  return service;
}
