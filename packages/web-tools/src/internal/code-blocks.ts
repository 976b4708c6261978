// Code blocks: one <pre><code> per block, with the language the page declares in any of the
// common highlighter conventions, kept in a data attribute that survives Readability's cleanup.
import { all, connected, type Document, type Element } from './dom.js';

const PRE = new Set(['PRE']);

/** Languages recognised when a class names them bare (`<pre class="javascript">`). */
const BARE_LANGUAGES = new Set(
  (
    'bash c clojure coffeescript cpp csharp cs css dart diff docker dockerfile elixir erlang go ' +
    'graphql groovy haskell html http ini java javascript js json jsx julia kotlin latex less ' +
    'lisp lua makefile markdown matlab nginx objc objectivec ocaml perl php powershell ' +
    'protobuf python py r ruby rust scala scheme scss shell sh sql swift toml ts tsx ' +
    'typescript vb vbnet vim xml yaml yml zsh console text plaintext'
  ).split(' '),
);

const PREFIXED =
  /(?:^|\s)(?:language-|lang-|highlight-source-|highlight-|brush:\s*)([a-z][\w+#.-]*)/i;

/**
 * The language an element's `data-lang`/`data-language` or class list declares, if any. Bare
 * language names (`class="javascript"`) count only on the `<pre>` or `<code>` itself.
 */
export function languageOf(element: Element | null | undefined, bare = true): string | undefined {
  if (!element?.getAttribute) return undefined;
  const data = element.getAttribute('data-lang') ?? element.getAttribute('data-language');
  if (data && /^[\w+#.-]{1,30}$/.test(data.trim())) return data.trim().toLowerCase();
  const classes = (element.getAttribute('class') ?? '').toLowerCase();
  const prefixed = PREFIXED.exec(classes)?.[1];
  if (prefixed && prefixed !== 'none' && prefixed !== 'source') return prefixed;
  if (!bare) return undefined;
  for (const name of classes.split(/\s+/)) if (BARE_LANGUAGES.has(name)) return name;
  return undefined;
}

/**
 * Rewrites every `<pre>` as `<pre data-spine-lang="…"><code>text</code></pre>`: line breaks kept,
 * highlighter markup flattened, the language taken from the `<code>`, the `<pre>` or a wrapper one
 * or two levels up.
 */
export function normaliseCodeBlocks(
  document: Document,
  elements: Element[] = all(document, '*'),
): void {
  for (const pre of connected(elements, PRE)) {
    if (!pre.isConnected || pre.parentElement?.closest('pre')) continue;
    const code = pre.querySelector('code') as Element | null;
    const language =
      languageOf(code) ??
      languageOf(pre) ??
      languageOf(pre.parentElement as Element | null, false) ??
      languageOf(pre.parentElement?.parentElement as Element | null, false);
    for (const br of all(pre, 'br')) br.replaceWith(document.createTextNode('\n'));
    const text = pre.textContent ?? '';
    const fresh = document.createElement('code') as Element;
    fresh.textContent = text;
    while (pre.firstChild) pre.firstChild.remove();
    for (const name of pre.getAttributeNames()) pre.removeAttribute(name);
    pre.appendChild(fresh);
    if (language) pre.setAttribute('data-spine-lang', language);
  }
}
