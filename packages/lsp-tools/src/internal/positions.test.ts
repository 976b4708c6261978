import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LspPositionError } from '../errors.js';
import { classifyLocation } from './format.js';
import { isCallSite } from './incoming.js';
import { conciseError, splitLines, validatePosition } from './positions.js';

describe('validatePosition', () => {
  it('accepts exactly the positions inside the file (column up to one past the line end)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'spine-lsp-pos-'));
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.string({ maxLength: 12 }).map((line) => line.replace(/[\r\n]/g, '')),
            {
              minLength: 1,
              maxLength: 6,
            },
          ),
          fc.constantFrom('\n', '\r\n'),
          fc.integer({ min: -2, max: 9 }),
          fc.integer({ min: -2, max: 16 }),
          async (lines, newline, line, column) => {
            const file = join(root, 'f.ts');
            writeFileSync(file, `${lines.join(newline)}${newline}`);
            const inside =
              line >= 1 &&
              line <= lines.length &&
              column >= 1 &&
              column <= lines[line - 1]!.length + 1;
            const outcome = await validatePosition(root, file, { line, column }).then(
              () => 'ok',
              (error: unknown) => error,
            );
            if (inside) expect(outcome).toBe('ok');
            else expect(outcome).toBeInstanceOf(LspPositionError);
          },
        ),
        { numRuns: 200 },
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('splits lines the way LSP counts them', () => {
    expect(splitLines('a\r\nb\rc\nd')).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('conciseError', () => {
  it('drops stack frames and backtraces and keeps the message', () => {
    expect(
      conciseError('Debug Failure. False expression\n    at foo (x.js:1:2)\n    at bar (y.js:3:4)'),
    ).toBe('Debug Failure. False expression');
    expect(
      conciseError(
        'error: broken\nstack backtrace:\n   0: 0x1234 - main\nnote: run with `RUST_BACKTRACE=1`',
      ),
    ).toBe('error: broken');
  });

  it('stays within its bound and on one line for any input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), (text) => {
        const short = conciseError(text, 100);
        expect(short.length).toBeLessThanOrEqual(100);
        expect(short).not.toMatch(/[\r\n]/);
      }),
    );
  });
});

describe('isCallSite and classifyLocation', () => {
  it('recognises calls, optional calls, generic calls, tagged templates and new', () => {
    expect(isCallSite('  run(1);', 3, 'run')).toBe(true);
    expect(isCallSite('  run?.(1);', 3, 'run')).toBe(true);
    expect(isCallSite('  run<string>(1);', 3, 'run')).toBe(true);
    expect(isCallSite('  x = new Widget(2);', 11, 'Widget')).toBe(true);
    expect(isCallSite('  x = new ns.Widget(2);', 14, 'Widget')).toBe(true);
    expect(isCallSite("import { run } from './run.js';", 10, 'run')).toBe(false);
    expect(isCallSite('  const f = run;', 13, 'run')).toBe(false);
  });

  it('ranks source, build output, dependencies and outside paths', () => {
    expect(classifyLocation('/w', '/w/src/a.ts')).toBe('source');
    expect(classifyLocation('/w', '/w/packages/x/dist/index.d.ts')).toBe('build');
    expect(classifyLocation('/w', '/w/node_modules/x/index.d.ts')).toBe('dependency');
    expect(classifyLocation('/w', '/usr/lib/typescript/lib.d.ts')).toBe('outside');
  });
});
