import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findErrorLines, isErrorLine, pickErrorLines } from '../src/error-lines.js';

const dir = join(import.meta.dirname, 'fixtures', 'outputs');
const corpus = readdirSync(dir)
  .filter((name) => name.endsWith('.txt'))
  .sort()
  .map((name) => ({
    name: name.slice(0, -4),
    output: readFileSync(join(dir, name), 'utf8'),
    expected: readFileSync(join(dir, `${name.slice(0, -4)}.expected`), 'utf8')
      .split('\n')
      .filter((line) => line.length > 0),
  }));

// Lines real tools print around their errors, several with "error", "fail" or "exception" in
// them as ordinary words, none of them an error.
const NOISE = [
  'checking for updates in /home/dev/.cache',
  'Checking 14 files',
  'collected 12 items',
  'Traceback filtering is enabled for this run',
  '   Compiling serde v1.0.203',
  'Running 4 tests from src/errors/index.test.ts',
  ' PASS  src/format.test.ts',
  'ok  \texample.com/acme/util\t0.002s',
  ' ✓ src/errors.test.ts (3 tests) 4ms',
  'warning: unused variable: `count`',
  'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
  'Downloading https://registry.npmjs.org/errorhandler/-/errorhandler-1.5.1.tgz',
  'src/errors/index.ts compiled in 4ms',
  'Found 0 errors. Watching for file changes.',
  'Tests: 0 failed, 12 passed',
  'Retrying after a transient failure in 3s',
  'handled exceptions: none',
  'ErrorBoundary mounted',
  'The failure handler was registered',
  'added 214 packages, and audited 215 packages in 3s',
  '    at Object.<anonymous> (/srv/app/index.js:3:9)',
  '[exit code 1]',
  '',
];
const noiseLine = fc.oneof(
  fc.constantFrom(...NOISE),
  fc.stringMatching(/^[a-z][a-z0-9 .,/()'-]{0,70}$/),
);

describe('error extraction over a corpus of real tool outputs', () => {
  it('has the tools the issue names', () => {
    const names = corpus.map((entry) => entry.name.split('-')[0]);
    for (const tool of ['tsc', 'eslint', 'node', 'pytest', 'go', 'cargo', 'make', 'git', 'npm']) {
      expect(names).toContain(tool);
    }
  });

  it.each(corpus)('finds exactly the expected error lines of $name', ({ output, expected }) => {
    expect(findErrorLines(output)).toEqual(expected);
    const picked = pickErrorLines(output);
    expect(picked.source).toBe('pattern');
    expect(picked.lines[0]).toBe(expected[0]);
    expect(picked.lines.at(-1)).toBe(expected.at(-1));
  });

  it('gives the same result whatever noise surrounds the output (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...corpus),
        fc.array(fc.tuple(fc.nat(), fc.array(noiseLine, { maxLength: 4 })), { maxLength: 12 }),
        (entry, insertions) => {
          const lines = entry.output.split('\n');
          for (const [position, noise] of insertions) {
            lines.splice(position % (lines.length + 1), 0, ...noise);
          }
          const noisy = lines.join('\n');
          expect(findErrorLines(noisy)).toEqual(entry.expected);
          expect(pickErrorLines(noisy)).toEqual(pickErrorLines(entry.output));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('pickErrorLines', () => {
  it('is case-sensitive: ordinary words are not errors', () => {
    for (const line of ['checking', 'Traceback (most recent call last):', 'collected 3 items']) {
      expect(isErrorLine(line)).toBe(false);
    }
    expect(isErrorLine('AssertionError: expected 3 rows, got 4')).toBe(true);
    expect(isErrorLine("thread 'main' panicked at src/main.rs:2:5:")).toBe(true);
  });

  it('keeps the first and the last error line when the budget is small', () => {
    const output = Array.from(
      { length: 30 },
      (_, index) => `src/f${index}.ts(1,1): error TS2304: Cannot find name 'x${index}'.`,
    ).join('\n');
    const picked = pickErrorLines(output, { maxBytes: 200 });
    expect(picked.lines[0]).toContain("'x0'");
    expect(picked.lines.at(-1)).toContain("'x29'");
    expect(Buffer.byteLength(picked.lines.join(''))).toBeLessThanOrEqual(200);
  });

  it('caps by bytes, cutting a long line at a character boundary', () => {
    const long = `Error: ${'é'.repeat(2000)}`;
    const picked = pickErrorLines(`${long}\nfatal: ${'ü'.repeat(2000)}`, { maxBytes: 300 });
    expect(picked.lines).toHaveLength(2);
    expect(Buffer.byteLength(picked.lines.join(''))).toBeLessThanOrEqual(300);
    expect(picked.lines[0]?.startsWith('Error: éé')).toBe(true);
    expect(picked.lines[0]?.endsWith('…')).toBe(true);
  });

  it('falls back to the last meaningful lines when no pattern matches', () => {
    const output =
      'starting sync\nremote said: quota exceeded for bucket logs-eu\n\n[exit code 3]\n';
    expect(pickErrorLines(output)).toEqual({
      lines: ['starting sync', 'remote said: quota exceeded for bucket logs-eu'],
      source: 'tail',
    });
    expect(pickErrorLines('')).toEqual({ lines: [], source: 'tail' });
  });

  it('reads through ANSI colours', () => {
    expect(findErrorLines('\u001b[31merror\u001b[39m: linker `cc` not found')).toEqual([
      'error: linker `cc` not found',
    ]);
  });

  it('keeps at most maxBytes for any input (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 3000 }),
        fc.integer({ min: 80, max: 2000 }),
        (text, maxBytes) => {
          const picked = pickErrorLines(text, { maxBytes });
          expect(Buffer.byteLength(picked.lines.join(''))).toBeLessThanOrEqual(maxBytes);
        },
      ),
    );
  });
});
