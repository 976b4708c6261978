// Syntax highlighting of fenced code with highlight.js, an optional peer dependency loaded
// lazily: when it is not installed, code stays plain. Its output (HTML spans) is turned into
// terminal lines; every piece of code text passes visibleText before a colour is put around it.

import { visibleText } from '@spine/protocol';
import type { CodePalette, CodeTokenKind } from '../palette.js';

/** Highlights `code` written in `language`: its lines, styled and terminal-safe; undefined for
 * a language the highlighter does not know. */
export type CodeHighlighter = (code: string, language: string) => string[] | undefined;

/** The part of highlight.js used here. */
interface HighlightJs {
  highlight(
    code: string,
    options: { language: string; ignoreIllegals?: boolean },
  ): {
    value: string;
  };
  getLanguage(name: string): unknown;
}

/** highlight.js's common languages (about 40), kept as a variable so no bundler inlines it. */
const MODULE = 'highlight.js/lib/common';

/** highlight.js classes (the first name of a span) and the kind of token each is. */
const KIND_OF: Readonly<Record<string, CodeTokenKind>> = {
  keyword: 'keyword',
  built_in: 'type',
  type: 'type',
  class: 'type',
  literal: 'literal',
  number: 'number',
  string: 'string',
  regexp: 'string',
  char: 'string',
  symbol: 'literal',
  comment: 'comment',
  quote: 'comment',
  doctag: 'comment',
  title: 'function',
  function: 'function',
  section: 'function',
  attr: 'attribute',
  attribute: 'attribute',
  property: 'attribute',
  variable: 'attribute',
  'template-variable': 'attribute',
  meta: 'meta',
  tag: 'keyword',
  name: 'keyword',
  'selector-tag': 'keyword',
  bullet: 'meta',
  addition: 'string',
  deletion: 'number',
};

const ENTITIES: Readonly<Record<string, string>> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#x27;': "'",
  '&#39;': "'",
};

const decode = (html: string): string =>
  html.replace(/&(?:amp|lt|gt|quot|#x27|#39);/g, (entity) => ENTITIES[entity] ?? entity);

/** Turns highlight.js's HTML into styled lines: the innermost span's colour on each piece. */
function linesOf(html: string, palette: CodePalette): string[] {
  const lines: string[] = [];
  let line = '';
  const stack: (string | undefined)[] = [];
  for (const match of html.matchAll(/<span class="([^"]*)">|<\/span>|([^<]+)/g)) {
    if (match[1] !== undefined) {
      const name = /hljs-([\w-]+)/.exec(match[1])?.[1] ?? '';
      const kind = KIND_OF[name];
      stack.push(kind ? palette[kind] : stack.at(-1));
      continue;
    }
    if (match[2] === undefined) {
      stack.pop();
      continue;
    }
    const colour = stack.at(-1);
    const pieces = decode(match[2]).split('\n');
    pieces.forEach((piece, i) => {
      if (i > 0) {
        lines.push(line);
        line = '';
      }
      const text = visibleText(piece, { keepLineBreaks: true }).replace(/\t/g, '    ');
      if (text !== '') line += colour ? `${colour}${text}\u001b[39m` : text;
    });
  }
  lines.push(line);
  return lines;
}

/**
 * Loads highlight.js (an optional peer dependency) and returns a highlighter with `palette`'s
 * colours, or undefined when highlight.js is not installed (code is then shown plain) or there
 * are no colours. `load` replaces the import (tests).
 *
 * @example
 * ```ts
 * import { codePalette, colorLevel, loadCodeHighlighter, renderMarkdown, styleFor, terminalBackground } from '@spine/tui';
 * const palette = codePalette(colorLevel(process.stdout), terminalBackground());
 * const highlight = palette && (await loadCodeHighlighter(palette));
 * const style = styleFor(process.stdout);
 * const lines = renderMarkdown('```js\nconst x = 1;\n```', { style, ...(highlight ? { highlight } : {}) });
 * ```
 */
export async function loadCodeHighlighter(
  palette: CodePalette | undefined,
  load: () => Promise<unknown> = () => import(MODULE),
): Promise<CodeHighlighter | undefined> {
  if (!palette) return undefined;
  let hljs: HighlightJs;
  try {
    const loaded = (await load()) as { default?: HighlightJs } & Partial<HighlightJs>;
    const api = loaded.default ?? loaded;
    if (typeof api.highlight !== 'function' || typeof api.getLanguage !== 'function')
      return undefined;
    hljs = api as HighlightJs;
  } catch {
    return undefined;
  }
  return (code, language) => {
    const name = language.trim().split(/\s/)[0]?.toLowerCase() ?? '';
    if (name === '' || !hljs.getLanguage(name)) return undefined;
    try {
      return linesOf(hljs.highlight(code, { language: name, ignoreIllegals: true }).value, palette);
    } catch {
      return undefined;
    }
  };
}
