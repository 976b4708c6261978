import { parseHTML } from 'linkedom';

/** A linkedom document. */
export type Document = ReturnType<typeof parseHTML>['document'];
/** A linkedom element. */
export type Element = ReturnType<Document['createElement']>;

/** Parses a page (or a fragment, wrapped into a page) with linkedom. */
export function parsePage(html: string): Document {
  const isPage = /<html[\s>]/i.test(html.slice(0, 4096)) || /<body[\s>]/i.test(html);
  return parseHTML(isPage ? html : `<!doctype html><html><body>${html}</body></html>`).document;
}

const TAG_LIST = /^[a-z][a-z0-9]*(?:\s*,\s*[a-z][a-z0-9]*)*$/i;

/**
 * All elements matching a selector under a root, as a stable array. A plain list of tag names
 * takes linkedom's much faster `getElementsByTagName` (one tag: document order; several: grouped
 * by tag, for callers that do not need the order).
 */
export function all(root: Document | Element, selector: string): Element[] {
  if (TAG_LIST.test(selector)) {
    const tags = selector.split(',').map((tag) => tag.trim());
    if (tags.length === 1) return Array.from(root.getElementsByTagName(tags[0] ?? '')) as Element[];
    return tags.flatMap((tag) => Array.from(root.getElementsByTagName(tag)) as Element[]);
  }
  return Array.from(root.querySelectorAll(selector)) as Element[];
}

/**
 * The elements of a document-order snapshot (`all(root, '*')`) with one of these tag names
 * (upper case) that are still in the page: one walk of the page serves every pass.
 */
export function connected(elements: Element[], tags: ReadonlySet<string>): Element[] {
  return elements.filter((element) => tags.has(element.tagName) && element.isConnected);
}

/** The whitespace-normalised text of an element. */
export function textOf(element: Element): string {
  return (element.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/** The number of words (letter or digit runs) in a text. */
export function countWords(text: string): number {
  return text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
}

/** Replaces an element by its children. */
export function unwrap(element: Element): void {
  const parent = element.parentNode;
  if (!parent) return;
  while (element.firstChild) parent.insertBefore(element.firstChild, element);
  element.remove();
}
