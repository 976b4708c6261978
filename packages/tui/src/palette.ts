// Colour support and palettes: how many colours a stream gets (NO_COLOR, FORCE_COLOR, TERM,
// COLORTERM), whether the terminal's background is light or dark (SPINE_BACKGROUND, COLORFGBG),
// and the colours of highlighted code for each combination.

/** Colours a stream gets: 0 none, 1 the 16 ANSI colours, 2 256 colours, 3 truecolor (24 bit). */
export type ColorLevel = 0 | 1 | 2 | 3;

/** The terminal's background, for colours that stay readable on it. */
export type Background = 'dark' | 'light';

/**
 * The colours `stream` gets. `NO_COLOR` (any value) turns colour off, first; `FORCE_COLOR` sets
 * the level even off a terminal (`0` off, `1` 16, `2` 256, `3` truecolor; empty or `true` 16);
 * otherwise a terminal gets truecolor when `COLORTERM` is `truecolor` or `24bit`, 256 colours
 * when `TERM` names a 256-colour terminal, else 16, and `TERM=dumb` or a pipe none.
 *
 * @example
 * ```ts
 * colorLevel({ isTTY: true }, { TERM: 'xterm-256color' }); // 2
 * colorLevel({ isTTY: false }, { FORCE_COLOR: '3' }); // 3
 * ```
 */
export function colorLevel(
  stream: { isTTY?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): ColorLevel {
  if (env.NO_COLOR !== undefined) return 0;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === '' || force === 'true') return 1;
    if (force === 'false') return 0;
    const level = Number(force);
    if (Number.isInteger(level)) return Math.max(0, Math.min(3, level)) as ColorLevel;
    return 1;
  }
  if (!stream.isTTY || env.TERM === 'dumb') return 0;
  const colorterm = (env.COLORTERM ?? '').toLowerCase();
  if (colorterm === 'truecolor' || colorterm === '24bit') return 3;
  if (/256(col)?/.test(env.TERM ?? '')) return 2;
  return 1;
}

/**
 * The terminal's background: `SPINE_BACKGROUND=light|dark` when set, else from `COLORFGBG`
 * (`15;0` is dark: background colour 0–6 or 8 is dark, 7 or 9–15 light), else dark.
 */
export function terminalBackground(env: NodeJS.ProcessEnv = process.env): Background {
  const chosen = env.SPINE_BACKGROUND?.toLowerCase();
  if (chosen === 'light' || chosen === 'dark') return chosen;
  const bg = Number(env.COLORFGBG?.split(';').at(-1));
  if (Number.isInteger(bg) && (bg === 7 || (bg >= 9 && bg <= 15))) return 'light';
  return 'dark';
}

/** The kinds of code token that get a colour. */
export type CodeTokenKind =
  | 'keyword'
  | 'string'
  | 'number'
  | 'comment'
  | 'function'
  | 'type'
  | 'literal'
  | 'attribute'
  | 'meta';

/** The SGR sequence that opens each kind's colour (close with `ESC[39m`). */
export type CodePalette = Readonly<Record<CodeTokenKind, string>>;

const KINDS: readonly CodeTokenKind[] = [
  'keyword',
  'string',
  'number',
  'comment',
  'function',
  'type',
  'literal',
  'attribute',
  'meta',
];

// One colour per kind, in KINDS order, for each level and background.
const ANSI16: Record<Background, number[]> = {
  dark: [35, 32, 33, 90, 34, 36, 33, 93, 90],
  light: [35, 32, 31, 90, 34, 36, 31, 94, 90],
};
const ANSI256: Record<Background, number[]> = {
  dark: [176, 114, 179, 244, 75, 80, 179, 180, 244],
  light: [127, 28, 130, 243, 25, 30, 130, 94, 243],
};
const TRUECOLOR: Record<Background, string[]> = {
  dark: ['c678dd', '98c379', 'd19a66', '7f848e', '61afef', '56b6c2', 'd19a66', 'e5c07b', '7f848e'],
  light: ['a626a4', '50a14f', '986801', 'a0a1a7', '4078f2', '0184bc', '986801', 'c18401', 'a0a1a7'],
};

/**
 * The colours of highlighted code for `level` (1–3) on a `background`; undefined at level 0.
 *
 * @example
 * ```ts
 * codePalette(2, 'dark')?.keyword; // '\u001b[38;5;176m'
 * ```
 */
export function codePalette(level: ColorLevel, background: Background): CodePalette | undefined {
  if (level === 0) return undefined;
  const open = KINDS.map((_, i) => {
    if (level === 1) return `\u001b[${ANSI16[background][i]}m`;
    if (level === 2) return `\u001b[38;5;${ANSI256[background][i]}m`;
    const hex = TRUECOLOR[background][i] as string;
    const [r, g, b] = [0, 2, 4].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
    return `\u001b[38;2;${r};${g};${b}m`;
  });
  return Object.fromEntries(KINDS.map((kind, i) => [kind, open[i]])) as CodePalette;
}
