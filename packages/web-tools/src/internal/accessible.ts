// MathML and SVG carry text that reads as garbage when flattened; keep only their accessible text.
import { all, connected, type Document, type Element } from './dom.js';

const MATH = new Set(['MATH']);
const SVG = new Set(['SVG']);

function replaceWithCode(document: Document, element: Element, text: string): void {
  const code = document.createElement('code') as Element;
  code.textContent = text.replace(/\s+/g, ' ').trim();
  element.parentNode?.insertBefore(code, element);
  element.remove();
}

/**
 * Replaces visible `<math>` by its `alttext` or TeX/plain annotation as inline code, and visible
 * `<svg>` by its label (`aria-label`, `<title>`) as plain text; both are dropped when they carry
 * no accessible text. Runs after the hidden-content pass, so hidden copies are already gone.
 */
export function replaceMathAndSvg(
  document: Document,
  elements: Element[] = all(document, '*'),
): void {
  for (const math of connected(elements, MATH)) {
    if (!math.isConnected) continue;
    const annotation = math.querySelector(
      'annotation[encoding*="tex" i], annotation[encoding="text/plain" i]',
    ) as Element | null;
    const text = math.getAttribute('alttext') || annotation?.textContent || '';
    if (text.trim()) replaceWithCode(document, math, text);
    else math.remove();
  }
  for (const svg of connected(elements, SVG)) {
    if (!svg.isConnected) continue;
    const title = Array.from(svg.childNodes).find(
      (child) => (child as Element).tagName?.toLowerCase() === 'title',
    ) as Element | undefined;
    const label = (svg.getAttribute('aria-label') || title?.textContent || '').trim();
    if (label && svg.getAttribute('role') === 'img') {
      const span = document.createElement('span') as Element;
      span.textContent = label.replace(/\s+/g, ' ');
      svg.parentNode?.insertBefore(span, svg);
    }
    svg.remove();
  }
}
