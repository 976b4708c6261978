// Line matching for the grep tool on RE2 (re2-wasm): linear in the input, so no pattern can
// freeze the process. Calls into WebAssembly cost a fixed ~15 µs each, so a file is first tested
// in blocks of lines (one call per ~32 KiB) and only matching blocks line by line. Matching is
// synchronous, so the caller yields to the event loop between blocks and checks its signal there.
import { RE2 } from 're2-wasm';

/** RE2 syntax that JavaScript has and RE2 has not, told to the model in the tool description. */
export const RE2_SYNTAX_NOTE =
  'The pattern is RE2 syntax (linear time, like ripgrep): no backreferences (\\1) and no lookaround ((?=…), (?!…), (?<=…), (?<!…)); use alternation or several searches instead.';

/** A compiled line matcher. */
export interface LineMatcher {
  /** Whether the pattern matches an empty line (then every file has a match, even an empty one). */
  matchesEmptyLine: boolean;
  /** Indexes of the lines that match, in order, at most `limit`; stops early when `shouldStop()` says so. */
  matchLines(lines: readonly string[], limit: number, shouldStop: () => boolean): Promise<number[]>;
}

const BLOCK_CHARS = 32 * 1024;
const YIELD_EVERY_MS = 15;

/** Compiles `pattern`; the error message says what RE2 refused and what to do instead. */
export function compileLineMatcher(
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
  return {
    matchesEmptyLine: regex.test(''),
    async matchLines(lines, limit, shouldStop) {
      const found: number[] = [];
      let slice = Date.now();
      let start = 0;
      while (start < lines.length && found.length < limit) {
        let end = start;
        let chars = 0;
        while (end < lines.length && (end === start || chars < BLOCK_CHARS))
          chars += lines[end++]!.length + 1;
        if (regex.test(end - start === 1 ? lines[start]! : lines.slice(start, end).join('\n'))) {
          for (let index = start; index < end && found.length < limit; index++)
            if (regex.test(lines[index]!)) found.push(index);
        }
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
