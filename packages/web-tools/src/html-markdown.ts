import type TurndownService from 'turndown';
import { replaceMathAndSvg } from './internal/accessible.js';
import { removeBoilerplate } from './internal/boilerplate.js';
import { normaliseCodeBlocks } from './internal/code-blocks.js';
import { all, connected, type Element, parsePage } from './internal/dom.js';
import { extractMainContent } from './internal/extract.js';
import { removeHidden } from './internal/hidden.js';
import { absolutizeLinks, baseOf } from './internal/links.js';
import { markdownConverter } from './internal/markdown.js';
import { prepareTables } from './internal/tables.js';

/** Result of {@link htmlToMarkdown}. */
export interface HtmlToMarkdownResult {
  /** The page title (`<title>`, else `og:title`, else the first `<h1>`), if any. */
  title?: string;
  /** Readable main content as GitHub-flavoured Markdown. */
  markdown: string;
  /** What was removed because a reader of the rendered page would not see it. */
  hidden: { elements: number; words: number };
  /** How the tables in the main content were rendered. */
  tables: { gfm: number; layout: number; raw: number };
  /**
   * How the main content was found: `readability` (reader view), `readability-keep-unlikely`
   * (reader view, with class/id hints not allowed to delete the block holding most of the text),
   * `page` (no article found: the whole cleaned page).
   */
  extractor: 'readability' | 'readability-keep-unlikely' | 'page';
}

/** Options of {@link htmlToMarkdown}. */
export interface HtmlToMarkdownOptions {
  /** The page URL; relative links and images are made absolute against it. */
  baseUrl?: string;
}

/** Elements that never carry readable content (`<title>` stays for Readability's title logic). */
const DROP_TAGS = new Set(
  'SCRIPT STYLE NOSCRIPT TEMPLATE IFRAME OBJECT EMBED CANVAS BUTTON SELECT TEXTAREA INPUT LINK'.split(
    ' ',
  ),
);
const DROP_AFTER = new Set([...DROP_TAGS, 'TITLE']);

function titleOf(elements: Element[]): string | undefined {
  const first = (tag: string): Element | undefined =>
    elements.find((element) => element.tagName === tag);
  const title =
    first('TITLE')?.textContent?.trim() ||
    elements
      .find((meta) => meta.tagName === 'META' && meta.getAttribute('property') === 'og:title')
      ?.getAttribute('content')
      ?.trim() ||
    first('H1')?.textContent?.trim() ||
    undefined;
  return title?.replace(/\s+/g, ' ');
}

/**
 * Converts an HTML page to Markdown for the model, the way a reader view shows it. Hidden content
 * is removed from the original page first (`hidden`, `aria-hidden="true"`, inline and style-sheet
 * `display:none`, `visibility:hidden`, `opacity:0`, zero size, off-screen positioning, templates);
 * MathML and SVG become their accessible text. The main content is then found with Mozilla
 * Readability; links are made absolute (http and https only), code blocks fenced with their
 * language, data tables rendered as GFM tables and layout tables unwrapped.
 *
 * @example
 * ```ts
 * htmlToMarkdown('<title>T</title><main><h1>Hi</h1><p>x</p></main>').markdown; // '# Hi\n\nx'
 * ```
 */
export function htmlToMarkdown(
  html: string,
  options: HtmlToMarkdownOptions = {},
): HtmlToMarkdownResult {
  const document = parsePage(html);
  // One walk of the page serves every pass before extraction (each skips what went before it).
  const elements = all(document, '*');
  const title = titleOf(elements);
  const base = baseOf(document, options.baseUrl);
  const hidden = removeHidden(document, elements);
  replaceMathAndSvg(document, elements);
  for (const element of connected(elements, DROP_TAGS)) element.remove();
  normaliseCodeBlocks(document, elements);
  if (document.body) removeBoilerplate(document.body as Element, elements);
  const { root, extractor } = extractMainContent(document, elements);
  for (const element of all(root, '*')) if (DROP_AFTER.has(element.tagName)) element.remove();
  for (const form of all(root, 'form')) {
    if (!form.querySelector('p, pre, table, h1, h2, h3, ul, ol')) form.remove();
  }
  // After extraction: Readability weighs in-page `#` links differently and fills lazy `src`s.
  absolutizeLinks(root, base);
  const tables = prepareTables(document, root as Element);
  const markdown = markdownConverter()
    .turndown(root as unknown as TurndownService.Node)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { ...(title ? { title } : {}), markdown, hidden, tables, extractor };
}
