// The block-narrowing line matcher must find exactly the lines the plain algorithm finds (test a
// block, then every line of a matching block), in order and up to the limit, for any text.
import fc from 'fast-check';
import { RE2 } from 're2-wasm';
import { describe, expect, it } from 'vitest';
import { compileLineMatcher } from '../src/internal/grep-matcher.js';

/** The plain algorithm: a block of ~32 KiB is tested, then each of its lines. */
function reference(pattern: string, ignoreCase: boolean, lines: string[], limit: number): number[] {
  const regex = new RE2(pattern, ignoreCase ? 'imu' : 'mu');
  const found: number[] = [];
  let start = 0;
  while (start < lines.length && found.length < limit) {
    let end = start;
    let chars = 0;
    while (end < lines.length && (end === start || chars < 32 * 1024))
      chars += lines[end++]!.length + 1;
    if (regex.test(lines.slice(start, end).join('\n')))
      for (let index = start; index < end && found.length < limit; index++)
        if (regex.test(lines[index]!)) found.push(index);
    start = end;
  }
  return found;
}

const line = fc
  .array(fc.constantFrom('a', 'b', 'foo', ' ', 'é', '\u212a', '_', '!', '1', '\r', '\t'), {
    maxLength: 8,
  })
  .map((parts) => parts.join(''));
const pattern = fc.constantFrom(
  ...['a', 'foo', '^a', 'a$', '^$', '\\bfoo\\b', 'a\\s+b', 'b\\s*a', '(?s)a.b', '\\Aa', 'a\\z'],
  ...[
    'a b',
    'o!',
    'oo ',
    '_1',
    '(?-m)^a',
    '(?-m:a$)',
    '\\W\\w',
    '[^a]{3}',
    'é|\u212a',
    'a(?:\\s|!)',
    '\\d+',
    '.{9}',
    'k',
  ],
);

describe('the grep line matcher', () => {
  it('finds the same lines as testing every line of a matching block', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1, maxLength: 300 }),
        pattern,
        fc.boolean(),
        fc.integer({ min: 1, max: 400 }),
        async (lines, regex, ignoreCase, limit) => {
          const matcher = compileLineMatcher(regex, { ignoreCase });
          if ('error' in matcher) throw new Error(matcher.error);
          const found = await matcher.matchLines(lines, limit, () => false);
          expect(found).toEqual(reference(regex, ignoreCase, lines, limit));
        },
      ),
      { numRuns: 300 },
    );
  }, 120_000);

  it('finds matches far apart in a long file, across block boundaries', async () => {
    const lines = Array.from({ length: 20_000 }, (_, index) =>
      index % 997 === 0 ? `hit ${index}` : `line ${index} of filler text`,
    );
    const matcher = compileLineMatcher('^hit', {});
    if ('error' in matcher) throw new Error(matcher.error);
    const expected = lines.flatMap((text, index) => (text.startsWith('hit') ? [index] : []));
    expect(await matcher.matchLines(lines, 1000, () => false)).toEqual(expected);
    expect(await matcher.matchLines(lines, 3, () => false)).toEqual(expected.slice(0, 3));
  });
});
