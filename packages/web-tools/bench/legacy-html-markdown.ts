// Frozen copy of the HTML→Markdown converter as of commit f1c58f8 (before issue 24), kept only as
// the baseline of bench/reader.bench.ts. Do not edit.
import { createRequire } from 'node:module';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

type GfmModule = { gfm: TurndownService.Plugin };
const gfmModule = createRequire(import.meta.url)('@joplin/turndown-plugin-gfm') as GfmModule;

/** Result of {@link htmlToMarkdown}. */
export interface HtmlToMarkdownResult {
  /** The page title (`<title>`, else `og:title`, else the first `<h1>`), if any. */
  title?: string;
  /** Readable main content as GitHub-flavoured Markdown. */
  markdown: string;
}

/** Options of {@link htmlToMarkdown}. */
export interface HtmlToMarkdownOptions {
  /** The page URL; relative links and images are made absolute against it. */
  baseUrl?: string;
}

/** Elements that never carry readable content. */
const DROP_TAGS = [
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'object',
  'embed',
  'svg',
  'canvas',
  'button',
  'input',
  'select',
  'textarea',
  'nav',
  'aside',
  'footer',
  'dialog',
  'link',
  'meta',
  'title',
];
const DROP_SELECTORS = [
  '[hidden]',
  '[aria-hidden="true"]',
  '[role="navigation"]',
  '[role="banner"]',
  '[role="contentinfo"]',
  '[role="complementary"]',
  '[role="dialog"]',
  'body > header',
];
const BOILERPLATE =
  /(^|[\s_-])(cookie|consent|gdpr|newsletter|subscribe|share|social|advert|ads|promo|sidebar|breadcrumbs?|related|comments?|popup|modal|skip-link)([\s_-]|$)/i;

type Document = ReturnType<typeof parseHTML>['document'];
type Element = ReturnType<Document['createElement']>;

function textLength(element: Element): number {
  return (element.textContent ?? '').replace(/\s+/g, ' ').trim().length;
}

/** Picks the element holding the main content: `<main>`, a lone `<article>`, else the densest block. */
function mainContent(document: Document): Element {
  const body = document.body as Element;
  const main = document.querySelector('main, [role="main"]') as Element | null;
  if (main && textLength(main) > 0) return main;
  const articles = Array.from(document.querySelectorAll('article')) as Element[];
  if (articles.length === 1 && textLength(articles[0]!) > 0) return articles[0]!;
  // The tightest element holding at least 80% of the paragraph-like text is the content.
  const contained = new Map<Element, number>();
  let total = 0;
  for (const block of Array.from(
    document.querySelectorAll('p, pre, td, li, blockquote'),
  ) as Element[]) {
    const length = textLength(block);
    if (length < 25) continue;
    total += length;
    for (
      let node = block.parentElement as Element | null;
      node;
      node = node.parentElement as Element | null
    ) {
      contained.set(node, (contained.get(node) ?? 0) + length);
    }
  }
  let best: Element = body;
  let bestSize = textLength(body);
  for (const [element, length] of contained) {
    if (length < total * 0.8) continue;
    const size = textLength(element);
    if (size < bestSize) [best, bestSize] = [element, size];
  }
  return best;
}

function absolutize(document: Document, baseUrl: string | undefined): void {
  const baseHref = document.querySelector('base[href]')?.getAttribute('href') ?? undefined;
  let base: string | undefined = baseUrl;
  try {
    if (baseHref) base = new URL(baseHref, baseUrl).href;
  } catch {
    // A broken <base> is ignored; the page URL stays the base.
  }
  for (const [selector, attribute] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const element of Array.from(document.querySelectorAll(selector)) as Element[]) {
      const value = element.getAttribute(attribute) ?? '';
      if (/^\s*(javascript|data|vbscript):/i.test(value)) {
        if (attribute === 'src') element.remove();
        else element.removeAttribute(attribute);
        continue;
      }
      try {
        if (base) element.setAttribute(attribute, new URL(value, base).href);
      } catch {
        element.removeAttribute(attribute);
      }
    }
  }
}

/** Moves a code language hint from `<pre>` or a wrapper onto `<code class="language-…">`. */
function normaliseCodeBlocks(document: Document): void {
  for (const pre of Array.from(document.querySelectorAll('pre')) as Element[]) {
    const hints = [
      pre.getAttribute('class'),
      pre.parentElement?.getAttribute('class'),
      pre.getAttribute('data-lang'),
    ];
    const language =
      hints
        .map(
          (hint) =>
            /(?:language|lang|highlight-source)-([\w+#.-]+)/.exec(hint ?? '')?.[1] ?? undefined,
        )
        .find((found) => found !== undefined) ??
      pre.getAttribute('data-lang') ??
      undefined;
    let code = pre.querySelector('code') as Element | null;
    if (!code) {
      code = document.createElement('code') as Element;
      code.textContent = pre.textContent ?? '';
      pre.textContent = '';
      pre.appendChild(code);
    }
    if (language && !/language-/.test(code.getAttribute('class') ?? '')) {
      code.setAttribute('class', `language-${language}`);
    }
  }
}

let turndown: TurndownService | undefined;

/** One shared converter: turndown keeps no per-document state with inline links. */
function sharedTurndown(): TurndownService {
  if (turndown) return turndown;
  turndown = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
  });
  turndown.use(gfmModule.gfm);
  turndown.remove(['script', 'style', 'title']);
  return turndown;
}

/**
 * Converts an HTML page to Markdown for the model: boilerplate (scripts, navigation, footers,
 * cookie banners …) removed, the main content kept, links made absolute, code blocks fenced with
 * their language, tables as GFM tables.
 *
 * @example
 * ```ts
 * htmlToMarkdown('<title>T</title><main><h1>Hi</h1><p>x</p></main>').markdown; // '# Hi\n\nx'
 * ```
 */
export function legacyHtmlToMarkdown(
  html: string,
  options: HtmlToMarkdownOptions = {},
): HtmlToMarkdownResult {
  const { document } = parseHTML(
    html.includes('<html') ? html : `<!doctype html><html><body>${html}</body></html>`,
  );
  const title =
    document.querySelector('title')?.textContent?.trim() ||
    document.querySelector('meta[property="og:title"]')?.getAttribute('content')?.trim() ||
    document.querySelector('h1')?.textContent?.trim() ||
    undefined;
  for (const element of Array.from(document.querySelectorAll(DROP_TAGS.join(','))) as Element[])
    element.remove();
  for (const element of Array.from(
    document.querySelectorAll(DROP_SELECTORS.join(',')),
  ) as Element[])
    element.remove();
  for (const form of Array.from(document.querySelectorAll('form')) as Element[]) {
    // ASP.NET-style pages wrap the whole body in one <form>; only forms without content are chrome.
    if (!form.querySelector('main, article, p, pre, table, h1, h2')) form.remove();
  }
  for (const element of Array.from(
    document.querySelectorAll('div, section, ul, ol, p'),
  ) as Element[]) {
    const marker = `${element.getAttribute('id') ?? ''} ${element.getAttribute('class') ?? ''}`;
    if (BOILERPLATE.test(marker) && !element.querySelector('main, article')) element.remove();
  }
  absolutize(document, options.baseUrl);
  normaliseCodeBlocks(document);
  const container = document.body ? mainContent(document) : (document.documentElement as Element);
  const markdown = sharedTurndown()
    .turndown(container.innerHTML ?? '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return title ? { title: title.replace(/\s+/g, ' '), markdown } : { markdown };
}
