// Main-content extraction: Mozilla Readability (Firefox's reader view) over linkedom, chosen by
// measurement on the reader corpus (see bench/reader.bench.ts), with one guard: class and id
// names may lower a block's score but never delete a block holding most of the page's text.
import { Readability } from '@mozilla/readability';
import { all, connected, type Document, type Element, textOf } from './dom.js';

/** Which extractor produced the main content. */
export type Extractor = 'readability' | 'readability-keep-unlikely' | 'page';

/** Result of {@link extractMainContent}. */
export interface Extraction {
  /** The element holding the main content (detached from the page for Readability). */
  root: Element;
  extractor: Extractor;
}

const H1_MARK = 'data-spine-h1';
const H1 = new Set(['H1']);

type ReadabilityInternals = {
  _flags: number;
  _isProbablyVisible: (node: unknown) => boolean;
  _headerDuplicatesTitle: (node: unknown) => boolean;
  _isValidByline: (node: Element, matchString: string) => boolean;
  FLAG_STRIP_UNLIKELYS: number;
  REGEXPS: { unlikelyCandidates: RegExp; okMaybeItsACandidate: RegExp; byline: RegExp };
};

/**
 * True when an element that Readability would delete for its class or id alone holds the page's
 * article (`articleBody` or the `<h1>`) and at least half of the page's text:
 * then the class/id hint must not delete it outright. (A size rule alone is wrong: comment
 * threads, legends and sidebars larger than the article are common on the corpus.)
 */
function unlikelyBlockHoldsThePage(
  document: Document,
  reader: ReadabilityInternals,
  elements: Element[],
): boolean {
  const body = document.body as Element | null;
  if (!body) return false;
  const total = textOf(body).length;
  if (total < 1000) return false;
  const { unlikelyCandidates, okMaybeItsACandidate } = reader.REGEXPS;
  for (const element of elements) {
    if (!element.hasAttribute('class') && !element.hasAttribute('id')) continue;
    if (element === body || !element.isConnected || !body.contains(element)) continue;
    const marker = `${element.getAttribute('class') ?? ''} ${element.getAttribute('id') ?? ''}`;
    if (!unlikelyCandidates.test(marker) || okMaybeItsACandidate.test(marker)) continue;
    if (element.tagName === 'A' || element.closest('table, code')) continue;
    if (!element.querySelector('[itemprop="articleBody"], h1')) continue;
    if (textOf(element).length >= total * 0.5) return true;
  }
  return false;
}

/**
 * Finds the main content of a cleaned page. Readability runs on the page in place (it edits the
 * document); when it finds nothing the whole body is the content.
 */
export function extractMainContent(
  document: Document,
  elements: Element[] = all(document, '*'),
): Extraction {
  const body = document.body as Element | null;
  if (!body) return { root: document.documentElement as Element, extractor: 'page' };
  const reader = new Readability<Element>(
    document as unknown as ConstructorParameters<typeof Readability>[0],
    {
      serializer: (node) => node as unknown as Element,
      charThreshold: 500,
      disableJSONLD: true,
      keepClasses: true,
    },
  );
  const internals = reader as unknown as ReadabilityInternals;
  // The hidden-content pass already removed everything Readability's own (narrower) visibility
  // check looks for, and more; skipping it saves building a style object per node.
  internals._isProbablyVisible = () => true;
  // The page's headline stays in the content (the reader view shows it apart, as the title).
  internals._headerDuplicatesTitle = () => false;
  // Same result as Readability's own byline test, which reads the text of every node first:
  // this one reads it only when the cheap tests pass.
  const { byline } = internals.REGEXPS;
  internals._isValidByline = (node, matchString) => {
    const itemprop = node.getAttribute('itemprop');
    if (
      node.getAttribute('rel') !== 'author' &&
      !itemprop?.includes('author') &&
      !byline.test(matchString)
    )
      return false;
    const length = (node.textContent ?? '').trim().length;
    return length > 0 && length < 100;
  };

  let extractor: Extractor = 'readability';
  if (unlikelyBlockHoldsThePage(document, internals, elements)) {
    internals._flags &= ~internals.FLAG_STRIP_UNLIKELYS;
    extractor = 'readability-keep-unlikely';
  }
  // Readability demotes every <h1> to <h2>, copying attributes: mark them to restore the level.
  for (const heading of connected(elements, H1)) heading.setAttribute(H1_MARK, '');
  const article = reader.parse();
  const root = article?.content;
  if (root && textOf(root).length > 0) {
    for (const heading of all(root, `h2[${H1_MARK}]`)) {
      const restored = document.createElement('h1') as Element;
      while (heading.firstChild) restored.appendChild(heading.firstChild);
      heading.replaceWith(restored);
    }
    return { root, extractor };
  }
  return { root: document.body as Element, extractor: 'page' };
}
