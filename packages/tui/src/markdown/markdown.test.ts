import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { styleFor } from '../style.js';
import { renderMarkdown } from './render.js';
import { createMarkdownStream } from './stream.js';
import { displayWidth, stripAnsi } from './width.js';

const COLOUR = styleFor({ isTTY: true }, {});
const PLAIN = styleFor({ isTTY: false }, {});

const WORD = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/);
const SYNTAX = fc.constantFrom(
  ' ',
  ' ',
  '\n',
  '\n\n',
  '**',
  '*',
  '_',
  '~~',
  '`',
  '```\n',
  '# ',
  '## ',
  '- ',
  '1. ',
  '  - ',
  '> ',
  '- [ ] ',
  '- [x] ',
  '| ',
  ' | ',
  '|---|---|\n',
  '---\n',
  '[',
  '](',
  ')',
  '    ',
);
/** Markdown-ish text: words with syntax between them (no `:`, so no reference definitions). */
const MARKDOWN = fc
  .array(fc.tuple(fc.array(SYNTAX, { maxLength: 2 }), WORD), { maxLength: 40 })
  .map((parts) => ({
    words: parts.map(([, w]) => w),
    text: parts.map(([s, w]) => s.join('') + w).join(''),
  }));

/** Every word appears in `text`, in order. */
function inOrder(text: string, words: string[]): boolean {
  let at = 0;
  for (const word of words) {
    const found = text.indexOf(word, at);
    if (found < 0) return false;
    at = found + word.length;
  }
  return true;
}

describe('renderMarkdown', () => {
  it('keeps every word of any Markdown in order, styles stripped (colour and plain)', () => {
    fc.assert(
      fc.property(MARKDOWN, fc.boolean(), ({ words, text }, colour) => {
        const lines = renderMarkdown(text, { width: 200, style: colour ? COLOUR : PLAIN });
        expect(inOrder(stripAnsi(lines.join('\n')), words)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('writes no escape sequence at all when colour is off, whatever the input', () => {
    fc.assert(
      fc.property(MARKDOWN, fc.string(), ({ text }, noise) => {
        const out = renderMarkdown(text + noise, {
          width: 40,
          style: PLAIN,
          hyperlinks: true,
        }).join('\n');
        // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting there is none.
        expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      }),
      { numRuns: 200 },
    );
  });

  it('never makes a line wider than the width (colour on, wide and combining text)', () => {
    const text = fc.array(
      fc.constantFrom(
        '漢字',
        '👍🏽',
        'e\u0301',
        'word',
        ' ',
        '**',
        '\n',
        '- ',
        '> ',
        '| a | b |\n|---|---|\n| 漢 | 👍 |\n',
      ),
      { maxLength: 60 },
    );
    fc.assert(
      fc.property(text, fc.constantFrom(20, 40, 120), (parts, width) => {
        for (const line of renderMarkdown(parts.join(''), { width, style: COLOUR })) {
          expect(displayWidth(line)).toBeLessThanOrEqual(width);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('renders the elements: headings, emphasis, lists, tasks, quotes, code, rules', () => {
    const text =
      '# Title\n\nSome *em* **strong** ~~gone~~ `code`.\n\n1. one\n2. two\n   - nested\n\n- [x] done\n- [ ] todo\n\n> quoted\n\n```ts\nlet a = 1;\n```\n\n---\n';
    expect(renderMarkdown(text, { width: 40, style: PLAIN })).toEqual([
      '# Title',
      '',
      'Some em strong ~~gone~~ `code`.',
      '',
      '1. one',
      '2. two',
      '   - nested',
      '',
      '- [x] done',
      '- [ ] todo',
      '',
      '> quoted',
      '',
      '  ts',
      '    let a = 1;',
      '',
      '─'.repeat(40),
    ]);
    const coloured = renderMarkdown('*em* **strong** ~~gone~~', { width: 40, style: COLOUR })[0];
    expect(coloured).toBe(
      '\u001b[3mem\u001b[23m \u001b[1mstrong\u001b[22m \u001b[9mgone\u001b[29m',
    );
  });

  it('prints links as OSC 8 hyperlinks when asked, otherwise as text (url)', () => {
    const text = '[site](https://example.com/a?b=1)';
    expect(renderMarkdown(text, { style: PLAIN, hyperlinks: true })).toEqual([
      'site (https://example.com/a?b=1)',
    ]);
    expect(renderMarkdown(text, { style: COLOUR, hyperlinks: true })).toEqual([
      '\u001b]8;;https://example.com/a?b=1\u001b\\\u001b[4msite\u001b[24m\u001b]8;;\u001b\\',
    ]);
  });

  it('wraps by display width and carries styles over the break', () => {
    const lines = renderMarkdown('**漢字漢字漢字 漢字漢字漢字**', { width: 12, style: COLOUR });
    expect(lines).toEqual(['\u001b[1m漢字漢字漢字\u001b[0m', '\u001b[1m漢字漢字漢字\u001b[22m']);
  });
});

describe('tables', () => {
  const table =
    '| name | note |\n|:--|--:|\n| 漢字 | 👍🏽 ok |\n| e\u0301e\u0301 | a longer note that wraps inside its column |\n';

  it.each([20, 40, 120])('fits width %i by display width, every cell word kept', (width) => {
    const lines = renderMarkdown(table, { width, style: COLOUR });
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(width);
    expect(
      inOrder(stripAnsi(lines.join(' ')).replace(/[\s│]+/g, ' '), ['name', 'note', '漢字', '👍🏽']),
    ).toBe(true);
    expect(stripAnsi(lines.join('\n'))).toContain('e\u0301e\u0301');
  });

  it('lays columns out at 40 columns', () => {
    expect(renderMarkdown(table, { width: 40, style: PLAIN })).toEqual([
      `name │ ${' '.repeat(29)}note`,
      '─────┼──────────────────────────────────',
      `漢字 │ ${' '.repeat(28)}👍🏽 ok`,
      'e\u0301e\u0301   │   a longer note that wraps inside',
      `     │ ${' '.repeat(23)}its column`,
    ]);
  });

  it('prints a table that cannot fit as its raw Markdown lines', () => {
    const wide = `|${' c |'.repeat(12)}\n|${'---|'.repeat(12)}\n|${' 1 |'.repeat(12)}\n`;
    expect(renderMarkdown(wide, { width: 20, style: COLOUR })).toEqual(wide.trimEnd().split('\n'));
  });
});

describe('createMarkdownStream', () => {
  it('commits, over any chunking, exactly what rendering the whole text gives', () => {
    fc.assert(
      fc.property(
        MARKDOWN,
        fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 20 }),
        ({ text }, sizes) => {
          const options = { width: 60, style: COLOUR };
          const stream = createMarkdownStream(options);
          const out: string[] = [];
          let at = 0;
          for (let i = 0; at < text.length; i++) {
            const size = sizes[i % sizes.length] ?? 1;
            out.push(...stream.push(text.slice(at, at + size)));
            at += size;
          }
          out.push(...stream.end());
          expect(out).toEqual(renderMarkdown(text, options));
        },
      ),
      { numRuns: Number(process.env.MD_RUNS ?? 300) },
    );
  });

  it('never renders a half-written fence as closed', () => {
    const stream = createMarkdownStream({ width: 40, style: PLAIN });
    expect(stream.push('Intro.\n\n```\n')).toEqual(['Intro.']);
    expect(stream.push('code\n\n# not a heading\n')).toEqual([]);
    expect(stream.pending()).toBe('```\ncode\n\n# not a heading\n');
    expect(stream.push('```\n\nafter\n')).toEqual(['', '    code', '', '    # not a heading']);
    expect(stream.end()).toEqual(['', 'after']);
  });
});
