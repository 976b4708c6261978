import { applyPatch } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { styleFor } from '../style.js';
import { moreLinesNote, renderDiff } from './render.js';

const plain = styleFor({ isTTY: false });
const colour = styleFor({ isTTY: true }, {});
const line = fc.constantFrom('a', 'b', 'c d e', '  x = 1;', '  x = 2;', '', 'const y = "z";');
const file = fc
  .tuple(fc.array(line, { maxLength: 30 }), fc.boolean())
  .map(([lines, end]) => lines.join('\n') + (end && lines.length > 0 ? '\n' : ''));
// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting control characters is the test.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: SGR sequences start with ESC.
const SGR = /\u001b\[\d+m/g;
const GUTTER = /^ *(\d+) ([ +-]) (.*)$/;

/** Reads a plain rendered diff back into unified-diff lines (`+text`, `-text`, ` text`). */
function parseBack(lines: string[]): string[] {
  return lines
    .filter((l) => !l.startsWith('@@'))
    .map((l) => {
      const match = GUTTER.exec(l);
      if (!match) throw new Error(`not a diff line: ${JSON.stringify(l)}`);
      return `${match[2]}${match[3]}`;
    });
}

describe('renderDiff', () => {
  it('shows exactly the patch that turns the old file into the new one', () => {
    fc.assert(
      fc.property(file, file, (before, after) => {
        const shown = renderDiff(
          { kind: 'edit', path: 'f.ts', before, after },
          { style: plain, width: 10_000 },
        );
        expect(applyPatch(before, shown.patch)).toBe(after);
        const patchLines = shown.patch.hunks.flatMap((h) =>
          h.lines.filter((l) => !l.startsWith('\\')),
        );
        expect(parseBack(shown.lines)).toEqual(patchLines);
        expect(shown.added).toBe(patchLines.filter((l) => l[0] === '+').length);
        expect(shown.removed).toBe(patchLines.filter((l) => l[0] === '-').length);
      }),
    );
  });

  it('applies for any text, including control characters (escaped only on screen)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 60 }),
        fc.string({ unit: 'binary', maxLength: 60 }),
        (before, after) => {
          const shown = renderDiff({ kind: 'write', path: 'x', before, after }, { style: colour });
          expect(applyPatch(before, shown.patch)).toBe(after);
          for (const l of shown.lines) expect(l.replace(SGR, '')).not.toMatch(CONTROL);
        },
      ),
    );
  });

  const before = 'function add(a, b) {\n  return a + b;\n}\n';
  const after = 'function add(a, b) {\n  return a - b;\n}\n';

  it('renders header, line numbers and gutter at width 80', () => {
    const shown = renderDiff(
      { kind: 'edit', path: 'src/add.js', before, after },
      { style: plain, width: 80 },
    );
    expect(shown.header).toBe('Edit src/add.js (+1 −1)');
    expect(shown.lines).toEqual([
      '@@ -1,3 +1,3 @@',
      '1   function add(a, b) {',
      '2 -   return a + b;',
      '2 +   return a - b;',
      '3   }',
    ]);
  });

  it('cuts long lines with … at width 20', () => {
    const shown = renderDiff(
      { kind: 'edit', path: 'src/add.js', before, after },
      { style: plain, width: 20 },
    );
    for (const l of shown.lines) expect(l.length).toBeLessThanOrEqual(20);
    expect(shown.lines[1]).toBe('1   function add(a,…');
  });

  it('highlights the changed words only when colours are on', () => {
    const shown = renderDiff({ kind: 'edit', path: 'a', before, after }, { style: colour });
    expect(shown.lines[2]).toContain('\u001b[7m+\u001b[27m');
    expect(shown.lines[3]).toContain('\u001b[7m-\u001b[27m');
    const flat = renderDiff({ kind: 'edit', path: 'a', before, after }, { style: plain });
    expect(flat.lines.join('')).not.toContain('\u001b');
  });

  it('escapes control sequences in file text and path', () => {
    const shown = renderDiff(
      { kind: 'write', path: 'a\u001b[2Jb', before: '', after: 'x\u001b]0;title\u0007y\n' },
      { style: plain },
    );
    expect(shown.header).toBe('Write a\\x1b[2Jb (+1 −0)');
    expect(shown.lines[1]).toBe('1 + x\\x1b]0;title\\x07y');
  });

  it('caps the lines and counts the rest', () => {
    const big = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
    const shown = renderDiff(
      { kind: 'write', path: 'big', before: '', after: big },
      { style: plain, maxLines: 10 },
    );
    expect(shown.lines).toHaveLength(10);
    expect(shown.hidden).toBe(41);
    expect(moreLinesNote(shown.hidden, plain)).toBe('41 more lines — press v to view all');
  });
});
