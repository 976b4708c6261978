// Spine's cleanup before extraction: small blocks that are page chrome by role, tag or class name.
// A class or id hint only ever removes a small block; a block holding a large share of the
// content stays whatever it is called.
import { all, type Element, textOf } from './dom.js';

const BOILERPLATE =
  /(^|[\s_-])(cookies?|consent|gdpr|newsletter|subscribe|share|sharing|social|advert|ads|promo|sidebar|breadcrumbs?|related|comments?|popup|modal|skip-link|banner)([\s_-]|$)/i;

const CHROME_TAGS = new Set(['NAV', 'ASIDE', 'FOOTER', 'DIALOG']);
const CHROME_ROLES = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'dialog',
  'alert',
]);
const MARKED_TAGS = new Set(['DIV', 'SECTION', 'UL', 'OL', 'P', 'FORM', 'HEADER', 'SPAN']);

function isChrome(element: Element): boolean {
  if (CHROME_TAGS.has(element.tagName)) return true;
  const role = element.getAttribute('role');
  if (role && CHROME_ROLES.has(role.toLowerCase())) return true;
  if (!MARKED_TAGS.has(element.tagName)) return false;
  const id = element.getAttribute('id');
  const className = element.getAttribute('class');
  return (id !== null || className !== null) && BOILERPLATE.test(`${id ?? ''} ${className ?? ''}`);
}

/** Removes small chrome blocks (navigation, banners, share and cookie blocks) from the content. */
export function removeBoilerplate(root: Element, elements: Element[] = all(root, '*')): number {
  const limit = Math.min(1000, textOf(root).length * 0.2);
  let removed = 0;
  for (const element of elements) {
    if (element === root || !isChrome(element)) continue;
    if (!element.isConnected || !root.contains(element)) continue;
    if (textOf(element).length > limit || element.querySelector('h1, pre, table, main, article'))
      continue;
    element.remove();
    removed++;
  }
  return removed;
}
