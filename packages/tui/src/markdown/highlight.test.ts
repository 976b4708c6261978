// biome-ignore-all lint/suspicious/noControlCharactersInRegex: these tests look for raw control characters.
// Fenced code highlighted with highlight.js (installed here as a dev dependency) and plain when
// it is absent; colour levels and backgrounds from the environment; a 20- and a 300-column sweep
// of every Markdown element in every palette, replayed into a virtual terminal: no row wraps.
import { Terminal } from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { type ColorLevel, codePalette, colorLevel, terminalBackground } from '../palette.js';
import { styleFor } from '../style.js';
import { loadCodeHighlighter } from './highlight.js';
import { renderMarkdown } from './render.js';
import { displayWidth, stripAnsi } from './width.js';

const ON = styleFor({ isTTY: true }, {});
const OFF = styleFor({ isTTY: false }, {});
const CODE =
  '```js\nconst greeting = "hi"; // say it\nfunction add(a, b) {\n\treturn a + 42;\n}\n```';

describe('code highlighting', () => {
  it('colours known languages with the palette and keeps the code text', async () => {
    const palette = codePalette(2, 'dark');
    const highlight = await loadCodeHighlighter(palette);
    expect(highlight).toBeDefined();
    const lines = renderMarkdown(CODE, { style: ON, ...(highlight ? { highlight } : {}) });
    const text = lines.join('\n');
    expect(text).toContain(`${palette?.keyword}const\u001b[39m`);
    expect(text).toContain(`${palette?.string}"hi"\u001b[39m`);
    expect(text).toContain(`${palette?.comment}// say it\u001b[39m`);
    expect(text).toContain(`${palette?.number}42\u001b[39m`);
    expect(lines.map(stripAnsi)).toEqual([
      '  js',
      '    const greeting = "hi"; // say it',
      '    function add(a, b) {',
      '        return a + 42;',
      '    }',
    ]);
    // An unknown language, or no language, stays plain (dim), as without highlight.js.
    const unknown = renderMarkdown('```nosuchlang\nx = 1\n```', {
      style: ON,
      highlight: highlight!,
    });
    expect(unknown.join('\n')).not.toContain('\u001b[38;5;');
  });

  it('falls back to plain code when highlight.js is not installed', async () => {
    const palette = codePalette(3, 'light');
    const missing = () =>
      Promise.reject(
        Object.assign(new Error("Cannot find module 'highlight.js'"), {
          code: 'ERR_MODULE_NOT_FOUND',
        }),
      );
    expect(await loadCodeHighlighter(palette, missing)).toBeUndefined();
    expect(await loadCodeHighlighter(palette, async () => ({ default: {} }))).toBeUndefined();
    const plain = renderMarkdown(CODE, { style: ON });
    expect(plain.map(stripAnsi)).toEqual([
      '  js',
      '    const greeting = "hi"; // say it',
      '    function add(a, b) {',
      '        return a + 42;',
      '    }',
    ]);
    expect(plain.join('\n')).not.toMatch(/\u001b\[3[0-8]/);
  });

  it('writes no escape sequence without colour, and keeps hostile code inert', async () => {
    const highlight = await loadCodeHighlighter(codePalette(1, 'dark'));
    const hostile = '```js\nconst t = "\u001b]0;owned\u0007\u001b[2J\u009b31m";\n```';
    expect(renderMarkdown(hostile, { style: OFF, highlight: highlight! }).join('\n')).not.toMatch(
      /[\u001b\u0007\u009b]/,
    );
    const shown = renderMarkdown(hostile, { style: ON, highlight: highlight! }).join('\n');
    expect(stripAnsi(shown)).toContain('\\x1b]0;owned\\x07\\x1b[2J\\x9b31m');
    expect(stripAnsi(shown)).not.toMatch(/[\u0007\u009b]|\u001b(?!\[)/);
  });
});

describe('colour levels and backgrounds', () => {
  it('follows NO_COLOR, FORCE_COLOR, COLORTERM, TERM and the stream', () => {
    const tty = { isTTY: true };
    const pipe = { isTTY: false };
    expect(colorLevel(tty, { TERM: 'xterm' })).toBe(1);
    expect(colorLevel(tty, { TERM: 'xterm-256color' })).toBe(2);
    expect(colorLevel(tty, { TERM: 'xterm-256color', COLORTERM: 'truecolor' })).toBe(3);
    expect(colorLevel(tty, { COLORTERM: '24bit' })).toBe(3);
    expect(colorLevel(tty, { TERM: 'dumb' })).toBe(0);
    expect(colorLevel(pipe, { TERM: 'xterm-256color' })).toBe(0);
    expect(colorLevel(tty, { NO_COLOR: '', FORCE_COLOR: '3' })).toBe(0);
    expect(colorLevel(pipe, { FORCE_COLOR: '' })).toBe(1);
    expect(colorLevel(pipe, { FORCE_COLOR: '2' })).toBe(2);
    expect(colorLevel(pipe, { FORCE_COLOR: '3' })).toBe(3);
    expect(colorLevel(tty, { FORCE_COLOR: '0' })).toBe(0);
    expect(colorLevel(tty, { FORCE_COLOR: 'false' })).toBe(0);
    expect(colorLevel(pipe, { FORCE_COLOR: '7' })).toBe(3);
    // The style follows: colour on a pipe only when forced, never with NO_COLOR.
    expect(styleFor(pipe, { FORCE_COLOR: '1' }).bold('x')).toBe('\u001b[1mx\u001b[22m');
    expect(styleFor(tty, { NO_COLOR: '1' }).bold('x')).toBe('x');
  });

  it('tells light from dark backgrounds', () => {
    expect(terminalBackground({})).toBe('dark');
    expect(terminalBackground({ COLORFGBG: '15;0' })).toBe('dark');
    expect(terminalBackground({ COLORFGBG: '0;15' })).toBe('light');
    expect(terminalBackground({ COLORFGBG: '0;default;7' })).toBe('light');
    expect(terminalBackground({ COLORFGBG: '0;15', SPINE_BACKGROUND: 'dark' })).toBe('dark');
    expect(terminalBackground({ SPINE_BACKGROUND: 'LIGHT' })).toBe('light');
  });

  it('has a distinct palette for each level and background', () => {
    expect(codePalette(0, 'dark')).toBeUndefined();
    const forms: Record<number, RegExp> = {
      1: /^\u001b\[(3[0-7]|9[0-7])m$/,
      2: /^\u001b\[38;5;\d{1,3}m$/,
      3: /^\u001b\[38;2;\d{1,3};\d{1,3};\d{1,3}m$/,
    };
    for (const level of [1, 2, 3] as ColorLevel[]) {
      const dark = codePalette(level, 'dark')!;
      const light = codePalette(level, 'light')!;
      for (const open of [...Object.values(dark), ...Object.values(light)])
        expect(open).toMatch(forms[level]!);
      expect(dark).not.toEqual(light);
    }
  });
});

const CORPUS = [
  '# A heading that is fairly long for a narrow terminal',
  '',
  'Some *emphasis*, **strong**, ~~struck~~, `inline code` and a [link](https://example.com/a/very/long/path/that/goes/on).',
  '',
  '- item one with enough words to wrap on a narrow screen',
  '  - nested item 漢字 and emoji 👍👍 in it',
  '1. first',
  '2. second',
  '- [x] a task',
  '',
  '> a quote that also wraps when the terminal is narrow enough',
  '',
  '```ts',
  'export function longFunctionName(parameterOne: string, parameterTwo: number): string { return parameterOne.repeat(parameterTwo); }',
  '```',
  '',
  '| name | 状態 | note |',
  '|---|---|---|',
  '| parse.ts | ok 👍 | a cell with several words |',
  '',
  '---',
  'Supercalifragilisticexpialidocious_is_a_long_word_without_any_spaces_at_all.',
].join('\n');

/** Renders, replays into an xterm of `width` columns; returns the rows, and whether any wrapped. */
async function replay(
  lines: string[],
  width: number,
): Promise<{ rows: string[]; wrapped: number }> {
  const term = new Terminal({ cols: width, rows: 10, allowProposedApi: true, scrollback: 5000 });
  await new Promise<void>((resolve) => term.write(`${lines.join('\r\n')}\r\n`, resolve));
  const buffer = term.buffer.active;
  const rows: string[] = [];
  let wrapped = 0;
  for (let row = 0; row < buffer.length; row++) {
    const line = buffer.getLine(row);
    if (line?.isWrapped) wrapped++;
    rows.push(line?.translateToString(true) ?? '');
  }
  term.dispose();
  return { rows, wrapped };
}

describe('width sweep', () => {
  it('renders every element at 20 and 300 columns in every palette without broken lines', async () => {
    for (const width of [20, 300]) {
      for (const level of [0, 1, 2, 3] as ColorLevel[]) {
        for (const background of ['dark', 'light'] as const) {
          const style = level === 0 ? OFF : ON;
          const highlight = await loadCodeHighlighter(codePalette(level, background));
          const lines = renderMarkdown(CORPUS, {
            width,
            style,
            hyperlinks: true,
            ...(highlight ? { highlight } : {}),
          });
          for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(width);
          if (level === 0) for (const line of lines) expect(line).not.toContain('\u001b');
          const { rows, wrapped } = await replay(lines, width);
          expect(wrapped, `${width} columns, level ${level}, ${background}`).toBe(0);
          // Nothing dropped: every word of the corpus's code and prose is on screen.
          const screen = rows.join(' ');
          for (const word of ['heading', 'emphasis', 'struck', 'nested', 'quote', 'note', 'second'])
            expect(screen).toContain(word);
          expect(screen.replace(/\s/g, '')).toContain('parameterOne.repeat(parameterTwo);');
        }
      }
    }
  });
});
