// Spine's cleanup before extraction: small blocks that are page chrome by role, tag or class name.
// A class or id hint only ever removes a small block; a block holding a large share of the
// content stays whatever it is called.
import { all, type Element, textOf } from './dom.js';

const BOILERPLATE =
  /(^|[\s_-])(cookies?|consent|gdpr|newsletter|subscribe|share|sharing|social|advert|ads|promo|sidebar|breadcrumbs?|related|comments?|popup|modal|skip-link|banner)([\s_-]|$)/i;

const CHROME_TAGS = 'nav, aside, footer, dialog';
const CHROME_ROLES =
  '[role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="dialog"], [role="alert"]';

/** Removes small chrome blocks (navigation, banners, share and cookie blocks) from the content. */
export function removeBoilerplate(root: Element): number {
  const total = textOf(root).length;
  const small = (element: Element): boolean => {
    const length = textOf(element).length;
    return length <= Math.min(1000, total * 0.2);
  };
  let removed = 0;
  for (const element of all(root, `${CHROME_TAGS}, ${CHROME_ROLES}, [class], [id]`)) {
    if (!root.contains(element)) continue;
    const chrome = element.matches(`${CHROME_TAGS}, ${CHROME_ROLES}`);
    if (!chrome) {
      if (!/^(DIV|SECTION|UL|OL|P|FORM|HEADER|SPAN)$/.test(element.tagName)) continue;
      const marker = `${element.getAttribute('id') ?? ''} ${element.getAttribute('class') ?? ''}`;
      if (!BOILERPLATE.test(marker)) continue;
    }
    if (element.querySelector('h1, pre, table, main, article') || !small(element)) continue;
    element.remove();
    removed++;
  }
  return removed;
}
