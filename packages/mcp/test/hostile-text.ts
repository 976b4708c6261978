// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${ENV} references are configuration text, not template literals.
import fc from 'fast-check';

/** Every C0 and C1 control, DEL, and the bidi, zero-width and separator characters a terminal acts on or hides. */
export const HOSTILE_CHARS: string[] = [
  ...Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)),
  ...Array.from({ length: 0x21 }, (_, index) => String.fromCharCode(0x7f + index)),
  ...[0x061c, 0x180e, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x2028, 0x2029]
    .concat([0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2060, 0x2066, 0x2067, 0x2068, 0x2069])
    .concat([0xfeff, 0xfff9, 0xfffa, 0xfffb])
    .map((code) => String.fromCharCode(code)),
];

/** What must never reach a terminal raw (what `visibleText` escapes). */
export const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /[\u0000-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]/;

/** Strings mixing every hostile character with text and escape-sequence shapes. */
export const hostileString: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.constantFrom(...HOSTILE_CHARS),
      fc.constantFrom('\u001b]0;owned\u0007', '\u001b[2J', '\u009b31m', '\u202eexe.txt', 'a', 'Z'),
      fc.string({ maxLength: 4 }),
    ),
    { minLength: 1, maxLength: 12 },
  )
  .map((parts) => parts.join(''));

/** Secret values: at least 4 characters, with regular-expression syntax in them. */
export const secretString: fc.Arbitrary<string> = fc
  .string({
    unit: fc.constantFrom(...'abcXYZ0129.*+?^${}()|[]\\/-_=:'.split('')),
    minLength: 6,
    maxLength: 24,
  })
  .map((body) => `S3cr3t${body}`);

/** `count` distinct samples of `arbitrary`, the same ones at every run (seeded). */
export function samples<T>(arbitrary: fc.Arbitrary<T>, count: number, seed: number): T[] {
  return [...new Set(fc.sample(arbitrary, { numRuns: count * 2, seed }))].slice(0, count);
}
