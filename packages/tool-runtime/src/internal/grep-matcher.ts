// Line matching for the grep tool on RE2 (re2-wasm): linear in the input, so no pattern can
// freeze the process. Calls into WebAssembly cost a fixed ~15 µs each, so a file is first tested
// in blocks of lines (one call per ~32 KiB). A matching block is narrowed by halves (a line that
// matches alone also matches in any block holding it, for every pattern without whole-text
// anchors), so a sparse match costs a few calls, not one per line; patterns with `\A`, `\z` or a
// turned-off flag are tested line by line. Matching is synchronous, so the caller yields to the
// event loop between blocks and checks its signal there.
import { RE2 } from 're2-wasm';

/** RE2 syntax that JavaScript has and RE2 has not, told to the model in the tool description. */
export const RE2_SYNTAX_NOTE =
  'The pattern is RE2 syntax (linear time, like ripgrep): no backreferences (\\1) and no lookaround ((?=…), (?!…), (?<=…), (?<!…)); use alternation or several searches instead.';

/** A compiled line matcher. */
export interface LineMatcher {
  /** Whether the pattern matches an empty line (then every file has a match, even an empty one). */
  matchesEmptyLine: boolean;
  /**
   * Indexes of the lines from `start` on that match, in order, at most `limit`; stops early when
   * `shouldStop()` says so.
   */
  matchLines(
    lines: readonly string[],
    limit: number,
    shouldStop: () => boolean,
    start?: number,
  ): Promise<number[]>;
  /** Which of the given line indexes (ascending) match, in order, at most `limit`. */
  matchCandidates(lines: readonly string[], candidates: readonly number[], limit: number): number[];
}

const BLOCK_CHARS = 32 * 1024;
/** Blocks of at most this many lines are tested line by line instead of halved again. */
const NARROW_LINES = 4;
// Whole-text anchors (and `(?-m)`, which makes ^ and $ anchors of the whole text): for these a line
// alone can match where the block holding it does not, so only the old line-by-line test is exact.
const NOT_LOCAL = /\\[Az]|\(\?[a-zA-Z]*-/;
const YIELD_EVERY_MS = 15;

/** Recently compiled matchers (they hold no state between calls), oldest first. */
const compiledCache = new Map<string, LineMatcher | { error: string }>();
const CACHED_PATTERNS = 64;

/** Compiles `pattern`; the error message says what RE2 refused and what to do instead. */
export function compileLineMatcher(
  pattern: string,
  options: { ignoreCase?: boolean },
): LineMatcher | { error: string } {
  const key = `${options.ignoreCase ? 'i' : '-'}${pattern}`;
  let compiled = compiledCache.get(key);
  if (compiled) compiledCache.delete(key);
  else compiled = compile(pattern, options);
  compiledCache.set(key, compiled);
  if (compiledCache.size > CACHED_PATTERNS)
    compiledCache.delete(compiledCache.keys().next().value!);
  return compiled;
}

function compile(
  pattern: string,
  options: { ignoreCase?: boolean },
): LineMatcher | { error: string } {
  let regex: RE2;
  try {
    regex = new RE2(pattern, options.ignoreCase ? 'imu' : 'mu');
  } catch (error) {
    const detail = (error instanceof Error ? error.message : String(error)).replace(
      /^Invalid regular expression: \/.*\/[a-z]*: /s,
      '',
    );
    return {
      error: `Invalid regular expression ${JSON.stringify(pattern.slice(0, 200))}: ${detail}. ${RE2_SYNTAX_NOTE}`,
    };
  }
  const compiled = regex;
  // A case-sensitive pattern of plain printable ASCII characters (no metacharacter at all) matches
  // exactly where it occurs as a substring, which V8 finds without the WebAssembly round trip.
  const literal =
    !options.ignoreCase && /^[\x20-\x7e]+$/.test(pattern) && !/[\\^$.|?*+()[\]{}]/.test(pattern)
      ? pattern
      : undefined;
  const test = literal
    ? (text: string): boolean => text.includes(literal)
    : (text: string): boolean => compiled.test(text);
  return {
    matchesEmptyLine: regex.test(''),
    matchCandidates(lines, candidates, limit) {
      const found: number[] = [];
      for (const index of candidates) {
        if (found.length >= limit) break;
        if (index < lines.length && test(lines[index]!)) found.push(index);
      }
      return found;
    },
    async matchLines(lines, limit, shouldStop, from = 0) {
      const found: number[] = [];
      const local = !NOT_LOCAL.test(pattern);
      const joined = (from: number, to: number): string =>
        to - from === 1 ? lines[from]! : lines.slice(from, to).join('\n');
      // Lines of [from, to) that match alone, in order; the block as a whole is known to match.
      const narrow = (from: number, to: number): void => {
        if (!local || to - from <= NARROW_LINES) {
          for (let index = from; index < to && found.length < limit; index++)
            if (test(lines[index]!)) found.push(index);
          return;
        }
        const middle = (from + to) >> 1;
        if (test(joined(from, middle))) narrow(from, middle);
        if (found.length < limit && test(joined(middle, to))) narrow(middle, to);
      };
      let slice = Date.now();
      let start = from;
      while (start < lines.length && found.length < limit) {
        let end = start;
        let chars = 0;
        while (end < lines.length && (end === start || chars < BLOCK_CHARS))
          chars += lines[end++]!.length + 1;
        if (test(joined(start, end))) narrow(start, end);
        start = end;
        if (Date.now() - slice >= YIELD_EVERY_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (shouldStop()) break;
          slice = Date.now();
        }
      }
      return found;
    },
  };
}
