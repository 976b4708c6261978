import { all, type Document, type Element, unwrap } from './dom.js';

/** The base URL of a page: its `<base href>` resolved against the page URL, else the page URL. */
export function baseOf(document: Document, pageUrl: string | undefined): string | undefined {
  const href =
    all(document, 'base')
      .find((base) => base.hasAttribute('href'))
      ?.getAttribute('href') ?? undefined;
  if (!href) return pageUrl;
  try {
    return new URL(href, pageUrl).href;
  } catch {
    return pageUrl;
  }
}

function resolve(value: string, base: string | undefined): string | undefined {
  const trimmed = value.trim();
  // Without a base, a relative link (no scheme) stays as written.
  if (!base && !/^[a-z][a-z\d+.-]*:/i.test(trimmed) && !trimmed.startsWith('//')) return trimmed;
  try {
    const url = base ? new URL(value.trim(), base) : new URL(value.trim());
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Resolves links and images to absolute http(s) URLs. A link to anything else (`javascript:`,
 * `file:`, `about:`, `data:` …) keeps its text and loses its target; such an image is dropped.
 * Without a base URL relative links stay relative.
 */
export function absolutizeLinks(root: Document | Element, base: string | undefined): void {
  for (const link of all(root, 'a')) {
    const href = link.getAttribute('href');
    const resolved = href ? resolve(href, base) : undefined;
    if (resolved) link.setAttribute('href', resolved);
    else unwrap(link);
  }
  for (const image of all(root, 'img')) {
    const src = image.getAttribute('src');
    const resolved = src ? resolve(src, base) : undefined;
    if (resolved) image.setAttribute('src', resolved);
    else image.remove();
  }
}
