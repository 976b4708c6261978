// Every string a session holds (tool names, titles, file names, outputs, model text) is hostile:
// it reaches HTML only through these functions, which escape markup and make control characters
// (ANSI escapes, C1 controls, bidi overrides, zero-width characters) visible and inert.
import { visibleText } from '@spine/protocol';

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes `&`, `<`, `>`, `"` and `'` (safe in text and in quoted attribute values). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] as string);
}

// The characters `visibleText` in @spine/protocol makes visible, less line feed and tab (layout).
const CONTROLS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]/g;

/**
 * Hostile text as HTML: markup is escaped, and control and bidi characters become visible
 * `\xNN` / `\uNNNN` marks (in a `ctl` span) as `visibleText` writes them. Line feeds and tabs stay
 * for `<pre>` layout; a CR LF pair becomes a line feed.
 */
export function inert(text: string): string {
  return escapeHtml(text.replace(/\r\n/g, '\n')).replace(
    CONTROLS,
    (char) => `<span class="ctl">${escapeHtml(visibleText(char))}</span>`,
  );
}

/** Like {@link inert}, for one-line fields (names, titles): line breaks are made visible too. */
export function inertLine(text: string): string {
  return inert(text).replace(
    /[\n\t]/g,
    (char) => `<span class="ctl">${char === '\n' ? '\\n' : '\\t'}</span>`,
  );
}

/** A number with thousands separators (`12,345`). */
export function formatInteger(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** A byte count for people (`812 B`, `14.2 KB`, `10.0 MB`). */
export function formatByteCount(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** A cost in US dollars with enough digits for fractions of a cent. */
export function formatUsd(value: number | undefined): string {
  return value === undefined ? '–' : `$${value.toFixed(value < 0.01 ? 6 : 4)}`;
}
