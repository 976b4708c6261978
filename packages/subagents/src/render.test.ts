import type { ChildEndReason } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutAtCodePoint, renderChildRecord, renderChildResult } from './render.js';
import type { ChildInfo } from './types.js';

const child: ChildInfo = {
  sessionId: 's1',
  toolCallId: 'c1',
  profile: { name: 'general', description: '', prompt: '', source: 'built-in' },
  description: 'work',
  depth: 1,
  sandbox: 'workspace-write',
};
/** No lone surrogate (a pair counts as one code point under the `u` flag). */
const isWellFormed = (value: string): boolean => !/\p{Cs}/u.test(value);
const usage = { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 };

// Text with every kind of UTF-16 unit: ASCII, astral pairs, lone surrogates, newlines, brackets.
const text = fc
  .array(
    fc.oneof(
      fc.string(),
      fc.constantFrom('😀', '𝒳', '\ud800', '\udc00', '\n', '[', ']', 'é'),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));
const names = fc.array(fc.oneof(text, fc.string({ minLength: 200, maxLength: 2000 })), {
  maxLength: 30,
});
// Answers at, around and far over the cap: a long run of one character, or of astral pairs.
const answer = fc.oneof(
  text,
  fc
    .record({ unit: fc.constantFrom('a', '😀', 'é\n'), count: fc.integer({ min: 0, max: 40_000 }) })
    .map(({ unit, count }) => unit.repeat(Math.ceil(count / unit.length))),
);

describe('renderChildResult', () => {
  it('cuts only the answer: the result fits the cap and ends with the whole record', () => {
    fc.assert(
      fc.property(
        answer,
        names,
        names,
        fc.constantFrom<ChildEndReason>('completed', 'error', 'max-steps'),
        fc.integer({ min: 1000, max: 40_000 }),
        (text, files, commands, reason, maxChars) => {
          const input = {
            child,
            reason,
            text,
            steps: 3,
            changes: { files, commands },
            usage,
            maxChars,
          };
          const { content } = renderChildResult(input);
          const record = renderChildRecord(input);
          expect(content.length).toBeLessThanOrEqual(maxChars);
          expect(content.endsWith(`\n\n${record}`)).toBe(true);
          // The cuts never leave a lone surrogate the input did not have.
          if ([text, ...files, ...commands].every((item) => isWellFormed(item)))
            expect(isWellFormed(content)).toBe(true);
          // An answer that fits is whole.
          if (reason === 'completed' && text.trim().length + record.length + 2 <= maxChars)
            expect(content.startsWith(text.trim() === '' ? '(the subagent' : text.trim())).toBe(
              true,
            );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('lists up to 20 short names whole in a 30,000-character result after a 100,000-character answer', () => {
    const files = Array.from({ length: 25 }, (_, index) => `src/module-${index}.ts`);
    const { content } = renderChildResult({
      child,
      reason: 'completed',
      text: 'x'.repeat(100_000),
      steps: 9,
      changes: { files, commands: ['npm test'] },
      usage,
    });
    expect(content.length).toBeLessThanOrEqual(30_000);
    expect(content).toContain(
      "[The subagent's answer was cut: showing the first part of 100000 characters.]",
    );
    expect(content).toContain(
      `files changed: ${files.slice(0, 20).join(', ')} and 5 more; commands run: npm test]`,
    );
  });
});

describe('cutAtCodePoint', () => {
  it('never ends on the first half of a surrogate pair', () => {
    expect(cutAtCodePoint('ab😀', 3)).toBe('ab');
    expect(cutAtCodePoint('ab😀', 4)).toBe('ab😀');
    expect(cutAtCodePoint('abc', 0)).toBe('');
  });
});
