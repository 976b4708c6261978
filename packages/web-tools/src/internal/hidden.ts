// Removes everything a sighted reader of the rendered page would not see, on the original page
// before any extraction runs, so hidden text can never be picked up as "content".
import { all, countWords, type Document, type Element, textOf } from './dom.js';

/** What the hidden-content pass removed. */
export interface HiddenRemoval {
  /** Elements removed (hidden, aria-hidden, styled out of sight, templates). */
  elements: number;
  /** Words of text inside them. */
  words: number;
}

/** Classes that hide an element in the common CSS frameworks, whatever the page's stylesheet. */
const HIDING_CLASSES = new Set([
  'hidden',
  'hide',
  'd-none',
  'is-hidden',
  'invisible',
  'visually-hidden',
  'visuallyhidden',
  'sr-only',
  'screen-reader-text',
  'screen-reader-only',
]);

/** Cheap pre-check: declarations without any of these never hide anything. */
const HIDING_HINT =
  /none|hidden|collapse|opacity\s*:\s*[0.]|-\d{3}|clip|scale|transparent|rgba\(|:\s*0(?![.\d])/i;
const ZERO = /^-?0+(?:\.0+)?(?:px|em|rem|%|pt|vw|vh)?$/;
const FAR_OFF = /^-\d{3,}(?:\.\d+)?(?:px|em|rem|pt|vw|vh|%)?$/;

/** Parses inline CSS declarations into a map of lower-cased property → value. */
export function parseDeclarations(css: string): Map<string, string> {
  const declarations = new Map<string, string>();
  for (const part of css.replace(/\/\*[\s\S]*?\*\//g, '').split(';')) {
    const colon = part.indexOf(':');
    if (colon < 0) continue;
    const property = part.slice(0, colon).trim().toLowerCase();
    const value = part
      .slice(colon + 1)
      .replace(/!\s*important/i, '')
      .trim()
      .toLowerCase();
    if (property) declarations.set(property, value);
  }
  return declarations;
}

function farOff(value: string | undefined): boolean {
  if (!value) return false;
  const number = Number.parseFloat(value);
  return FAR_OFF.test(value) && number <= -500;
}

/** True when these declarations take an element (and its content) out of sight. */
export function hidesElement(declarations: Map<string, string>): boolean {
  const get = (property: string): string | undefined => declarations.get(property);
  if (get('display') === 'none') return true;
  const visibility = get('visibility');
  if (visibility === 'hidden' || visibility === 'collapse') return true;
  const opacity = get('opacity');
  if (opacity !== undefined && /^0*(?:\.0*)?%?$/.test(opacity) && opacity !== '') return true;
  const overflow = `${get('overflow') ?? ''} ${get('overflow-x') ?? ''} ${get('overflow-y') ?? ''}`;
  const clips = /hidden|clip/.test(overflow);
  for (const size of ['width', 'height', 'max-width', 'max-height']) {
    const value = get(size);
    if (value !== undefined && ZERO.test(value) && clips) return true;
  }
  if (get('width') !== undefined && get('height') !== undefined) {
    if (ZERO.test(get('width') ?? '') && ZERO.test(get('height') ?? '')) return true;
  }
  const clip = get('clip') ?? '';
  if (/rect\(\s*(?:0|1px)[\s,]+(?:0|1px)[\s,]+(?:0|1px)[\s,]+(?:0|1px)\s*\)/.test(clip))
    return true;
  const clipPath = get('clip-path') ?? '';
  if (/inset\(\s*(?:50%|100%)|circle\(\s*0|polygon\(\s*0(?:px)?\s+0(?:px)?\s*\)/.test(clipPath))
    return true;
  const position = get('position');
  if (position === 'absolute' || position === 'fixed') {
    if (farOff(get('left')) || farOff(get('top')) || farOff(get('right')) || farOff(get('bottom')))
      return true;
  }
  if (farOff(get('text-indent')) || farOff(get('margin-left')) || farOff(get('margin-top')))
    return true;
  const transform = get('transform') ?? '';
  if (/scale[xy]?\(\s*0(?:\.0+)?\s*[,)]/.test(transform)) return true;
  for (const match of transform.matchAll(/translate(?:[xy]|3d)?\(\s*([^,)\s]+)/g)) {
    if (farOff(match[1])) return true;
  }
  const color = get('color') ?? '';
  if (color === 'transparent' || /^rgba\([^)]*,\s*0(?:\.0+)?\s*\)$/.test(color)) return true;
  if (ZERO.test(get('font-size') ?? 'x')) return true;
  return false;
}

/** A simple selector (`tag`, `.class`, `#id` and combinations) from a style sheet. */
interface SimpleSelector {
  tag?: string;
  ids: string[];
  classes: string[];
}

/**
 * The top-level rules of a style sheet as [selectors, declarations] pairs, in one linear scan.
 * At-rule blocks (`@media print`, `@supports` …) apply only sometimes and are skipped whole; the
 * class and id names they mention go into `conditional`.
 */
function topLevelRules(css: string, conditional: Set<string>): Array<[string, string]> {
  const rules: Array<[string, string]> = [];
  const braces = /[{};]/g;
  let depth = 0;
  let start = 0;
  let prelude = '';
  for (let match = braces.exec(css); match; match = braces.exec(css)) {
    const index = match.index;
    const char = match[0];
    if (char === '{') {
      if (depth === 0) {
        prelude = css.slice(start, index);
        start = index + 1;
      }
      depth++;
    } else if (char === '}') {
      if (depth === 0) continue;
      depth--;
      if (depth === 0) {
        const body = css.slice(start, index);
        if (!prelude.includes('@')) rules.push([prelude.trim(), body]);
        else for (const name of body.match(/[.#][\w-]+/g) ?? []) conditional.add(name);
        start = index + 1;
      }
    } else if (depth === 0) {
      start = index + 1; // `@import …;` and friends
    }
  }
  return rules;
}

/** Simple selectors that the page's own top-level style sheets hide. */
export function hiddenBySheets(
  document: Document,
  styles: Element[] = all(document, 'style'),
): SimpleSelector[] {
  const selectors: SimpleSelector[] = [];
  // A name that an @media block styles may be shown there (responsive layouts hide the mobile
  // copy at top level and show it in a media query): such rules are not trusted to hide.
  const conditional = new Set<string>();
  const rules: Array<[string, string]> = [];
  for (const style of styles) {
    const css = (style.textContent ?? '').replace(/\/\*[\s\S]*?\*\//g, '');
    rules.push(...topLevelRules(css, conditional));
  }
  for (const [prelude, body] of rules) {
    if (!HIDING_HINT.test(body) || !hidesElement(parseDeclarations(body))) continue;
    for (const selector of prelude.split(',')) {
      const trimmed = selector.trim();
      if (!/^[a-z]*(?:[.#][\w-]+)+$/i.test(trimmed)) continue;
      if ((trimmed.match(/[.#][\w-]+/g) ?? []).some((name) => conditional.has(name))) continue;
      const tag = /^[a-z]+/i.exec(trimmed)?.[0];
      selectors.push({
        ...(tag ? { tag: tag.toUpperCase() } : {}),
        ids: [...trimmed.matchAll(/#([\w-]+)/g)].map((match) => match[1] ?? ''),
        classes: [...trimmed.matchAll(/\.([\w-]+)/g)].map((match) => match[1] ?? ''),
      });
    }
  }
  return selectors;
}

function matches(element: Element, selector: SimpleSelector, classes: string[]): boolean {
  if (selector.tag && element.tagName !== selector.tag) return false;
  if (selector.ids.some((id) => element.getAttribute('id') !== id)) return false;
  return selector.classes.every((name) => classes.includes(name));
}

const HIDING_CLASS_HINT = /hid|none|invisible|sr-only|screen-reader/i;

/** Sheet selectors indexed by a name they require (`.class` or `#id`). */
type SheetIndex = Map<string, SimpleSelector[]>;

function indexSheets(selectors: SimpleSelector[]): SheetIndex {
  const index: SheetIndex = new Map();
  for (const selector of selectors) {
    const key = selector.ids[0] !== undefined ? `#${selector.ids[0]}` : `.${selector.classes[0]}`;
    index.set(key, [...(index.get(key) ?? []), selector]);
  }
  return index;
}

function hiddenBySheet(element: Element, sheets: SheetIndex, classes: string[]): boolean {
  const id = element.getAttribute('id');
  const keys = id ? [`#${id}`, ...classes.map((name) => `.${name}`)] : classes.map((n) => `.${n}`);
  for (const key of keys) {
    for (const selector of sheets.get(key) ?? []) {
      if (matches(element, selector, classes)) return true;
    }
  }
  return false;
}

function isHidden(element: Element, sheets: SheetIndex, drop: (element: Element) => void): boolean {
  if (element.hasAttribute('hidden')) return true;
  const ariaHidden = element.getAttribute('aria-hidden');
  if (ariaHidden && ariaHidden.trim().toLowerCase() === 'true') return true;
  const tag = element.tagName;
  if (tag === 'TEMPLATE') return true;
  if (tag === 'INPUT' && (element.getAttribute('type') ?? '').toLowerCase() === 'hidden')
    return true;
  if (tag === 'DIALOG' && !element.hasAttribute('open')) return true;
  const className = element.getAttribute('class');
  const classes: string[] = className ? className.split(/\s+/) : [];
  if (className && HIDING_CLASS_HINT.test(className)) {
    if (classes.some((name: string) => HIDING_CLASSES.has(name.toLowerCase()))) return true;
  }
  if (sheets.size > 0 && hiddenBySheet(element, sheets, classes)) return true;
  const style = element.getAttribute('style');
  if (!style || !HIDING_HINT.test(style)) return false;
  const declarations = parseDeclarations(style);
  const fontSize = declarations.get('font-size');
  if (fontSize === undefined || !ZERO.test(fontSize)) return hidesElement(declarations);
  // `font-size: 0` is also the inline-block gap trick: text under it is invisible unless a
  // descendant sets a size again, so keep only what sits under such a descendant.
  if (!element.querySelector('[style*="font-size"]')) return true;
  pruneZeroFontSize(element, drop);
  return false;
}

function setsFontSize(element: Element): boolean {
  const style = element.getAttribute('style');
  if (!style || !/font-size/i.test(style)) return false;
  const size = parseDeclarations(style).get('font-size');
  return size !== undefined && !ZERO.test(size);
}

/** Removes the text that inherits a zero font size, keeping subtrees that set a size again. */
function pruneZeroFontSize(element: Element, drop: (element: Element) => void): void {
  for (const child of Array.from(element.childNodes) as Element[]) {
    if ((child as { nodeType: number }).nodeType === 3) child.remove();
    else if ((child as { nodeType: number }).nodeType !== 1 || setsFontSize(child)) continue;
    else if (child.querySelector('[style*="font-size"]')) pruneZeroFontSize(child, drop);
    else drop(child);
  }
}

/**
 * Removes hidden elements from the page in place and reports how many elements and words went.
 * Runs on the whole original page, before main-content extraction.
 */
export function removeHidden(
  document: Document,
  elements: Element[] = all(document, '*'),
): HiddenRemoval {
  const removal: HiddenRemoval = { elements: 0, words: 0 };
  const drop = (element: Element): void => {
    if (!element.isConnected) return;
    removal.elements++;
    removal.words += countWords(textOf(element));
    element.remove();
  };
  const styles = elements.filter((element) => element.tagName === 'STYLE');
  const sheets = indexSheets(hiddenBySheets(document, styles));
  for (const element of elements) {
    if (element.tagName === 'BODY' || element.tagName === 'HTML') continue;
    if (element.isConnected && isHidden(element, sheets, drop)) drop(element);
  }
  return removal;
}
