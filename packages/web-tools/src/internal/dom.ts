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

/** All elements matching a selector under a root, as a stable array. */
export function all(root: Document | Element, selector: string): Element[] {
  return Array.from(root.querySelectorAll(selector)) as Element[];
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
