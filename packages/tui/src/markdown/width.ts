// Display width of terminal text: East Asian wide and emoji take 2 columns, combining marks 0.
// Only Unicode property regexes and Intl.Segmenter (no ESM-only width libraries: the package
// also builds to CommonJS).

const ZERO_WIDTH = /^(?:\p{Mn}|\p{Me}|\p{Cf}|\p{Cc})+$/u;
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;
const EMOJI_PRESENTATION = /\p{Emoji_Presentation}|\uFE0F/u;
// East Asian Wide and Fullwidth blocks (a compact approximation of EastAsianWidth.txt W/F).
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{1b000}-\u{1b2ff}\u{1f200}-\u{1f2ff}\u{20000}-\u{3fffd}]/u;
/** Our own escape sequences (SGR and OSC 8): model text never contains a raw ESC after escaping. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching our own escape sequences.
export const ANSI = /\u001b\[[0-9;]*m|\u001b\]8;[^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The graphemes (user-perceived characters) of `text`. */
export function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** Columns one grapheme takes on a terminal: 0, 1 or 2. */
export function graphemeWidth(grapheme: string): number {
  if (ZERO_WIDTH.test(grapheme)) return 0;
  if (EMOJI.test(grapheme) && (EMOJI_PRESENTATION.test(grapheme) || grapheme.length > 2)) return 2;
  return WIDE.test(grapheme) ? 2 : 1;
}

/** Removes Spine's own SGR and OSC 8 sequences from `text`. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/**
 * Columns `text` takes on a terminal, ignoring SGR and OSC 8 sequences: East Asian wide
 * characters and emoji count 2, combining marks 0.
 *
 * @example
 * ```ts
 * displayWidth('漢字 ok'); // 7
 * ```
 */
export function displayWidth(text: string): number {
  const plain = stripAnsi(text);
  if (/^[\u0020-\u007e]*$/.test(plain)) return plain.length;
  let width = 0;
  for (const g of graphemes(plain)) width += graphemeWidth(g);
  return width;
}
