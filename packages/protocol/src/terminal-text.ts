// The one function every model-, tool- or file-supplied string passes through before it reaches a
// terminal: control and escape sequences become visible text, so nothing the model writes can
// move the cursor, clear the screen, retitle the window, hide text or reorder it with bidi marks.

/**
 * C0 controls (except what layout may keep), DEL, C1 controls, and invisible format characters a
 * terminal would act on or hide: bidi embeddings, overrides and isolates, zero-width characters,
 * line and paragraph separators, the byte-order mark and interlinear annotation marks.
 */
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]/g;

/** Options of {@link visibleText}. */
export interface VisibleTextOptions {
  /** Keep line feeds (and CR LF pairs, as LF) and tabs, for multi-line layout. Default false. */
  keepLineBreaks?: boolean;
}

function escapeChar(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Makes control and escape sequences visible: ESC becomes `\x1b`, other C0 and C1 controls and DEL
 * `\xNN`, bidi and zero-width characters `\uNNNN`. With `keepLineBreaks`, `\n` and `\t` stay (a
 * CR LF pair becomes `\n`); a lone `\r`, which would let text overwrite its own line, never does.
 *
 * @example
 * ```ts
 * visibleText('ok\u001b[2J'); // 'ok\\x1b[2J'
 * ```
 */
export function visibleText(text: string, options: VisibleTextOptions = {}): string {
  if (options.keepLineBreaks === true) {
    // No callback per line feed: a long transcript passes through with one scan and no garbage.
    const source = text.includes('\r\n') ? text.replace(/\r\n/g, '\n') : text;
    return source.replace(UNSAFE_BUT_LAYOUT, escapeChar);
  }
  return text.replace(UNSAFE, escapeChar).replace(/\t/g, '\\t');
}

/** {@link UNSAFE} without the line feed (tabs are not in it). */
const UNSAFE_BUT_LAYOUT =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]/g;

/**
 * The same characters escaped as JSON `\uNNNN` sequences, for JSON text printed to a terminal:
 * the result parses to the same value, and C1 controls and bidi marks (which `JSON.stringify`
 * leaves raw) cannot act on the terminal.
 */
export function visibleJson(json: string): string {
  // C0 controls inside strings are already escaped by JSON.stringify; outside strings, line feeds
  // are layout. Only what JSON leaves raw is escaped here.
  return json.replace(
    UNSAFE_IN_JSON,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const UNSAFE_IN_JSON =
  /[\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]/g;
