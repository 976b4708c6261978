// Finds the lines of a command's output that a developer would read as the error: compiler
// diagnostics, exception lines, test-runner failures, tool "error:"/"fatal:" lines. Every pattern
// is case-sensitive on purpose: "checking", "Traceback" or "collected" are not errors, while
// `TypeError:` and `error TS2322:` are.

/** Options of {@link pickErrorLines}. */
export interface PickErrorLinesOptions {
  /** Most UTF-8 bytes of the lines kept, together (default 1000, at least 80). */
  maxBytes?: number;
}

/** The error lines {@link pickErrorLines} chose from an output. */
export interface PickedErrorLines {
  /** The lines, trimmed, in output order: the first and last error lines, then others as bytes allow. */
  lines: string[];
  /**
   * `pattern` when error patterns matched; `tail` when none did and the lines are the last
   * meaningful lines of the output (what a failing command printed last).
   */
  source: 'pattern' | 'tail';
}

const ERROR_PATTERNS: readonly RegExp[] = [
  // Exception and error class names: `TypeError: x`, `AssertionError [ERR_ASSERTION]: x`,
  // `java.lang.IllegalStateException: x`, pytest's `E   AssertionError: x`, `Caused by: …Exception`.
  /^(?:E\s+|Caused by: |Uncaught |\[[^\]]*\]\s*)?(?:[a-z_$][\w$]*\.)*[A-Z][\w$]*(?:Error|Exception|Failure|Fault)(?: \[[A-Z_\d]+\])?(?::|$)/,
  /^(?:Error|Exception|Failure|Fault)(?: \[[A-Z_\d]+\])?:/,
  /^Exception in thread "/,
  // Ruby names the class last: `app.rb:12:in 'x': undefined method (NoMethodError)`.
  /\((?:[A-Z]\w*::)*[A-Z]\w*(?:Error|Exception)\)$/,
  // Build logs that number their steps: BuildKit's `#7 2.871 ERROR: …`.
  /^#\d+ (?:[\d.]+ )?(?:ERROR|error)\b/,
  /^\[(?:ERROR|FATAL)\]/,
  // Tool messages: `error: …`, `fatal: …`, `ERROR: …`, `error[E0308]: …`, `Error - …`.
  /^(?:error|fatal|ERROR|FATAL|FATAL ERROR|panic)(?:\[[A-Z]?\d+\])?:/,
  /^(?:ERROR|FAILED|FAIL|FATAL)\b(?!\s*=*\s*$)/,
  /^(?:ERROR|FAIL|FAILED)$/,
  // Compiler diagnostics: `src/a.c:3:5: error: …`, `src/a.ts(3,5): error TS2322: …`,
  // `src/a.ts:3:5 - error TS2322: …`, C#'s `error CS0103:`, `collect2: error: …`, the linker's
  // `undefined reference to`, eslint's `  3:10  error  'x' is unused  no-unused-vars`.
  /^\S+?(?::\d+){1,2}:? (?:fatal )?error\b/,
  /\berror [A-Z]{1,4}\d{2,5}:/,
  /^[\w.+-]+: (?:fatal )?error: /,
  /\bundefined reference to\b/,
  /^Build FAILED\b/,
  /^\d+:\d+\s+error\s/,
  /^✖ [1-9]\d* problems? \(/,
  // Go: `./main.go:5:2: undefined: foo`, test messages `parse_test.go:12: want 3, got 4`.
  /^(?:\.{0,2}\/)?[\w./-]+\.go:\d+(?::\d+)?: /,
  // Test runners: `--- FAIL: TestX`, `FAIL src/a.test.ts`, `× sums`, summaries with failures.
  /^--- FAIL:/,
  /^(?:Tests?|Test Files|Test Suites):?\s+[1-9]\d* failed/,
  /^=+ .*\b[1-9]\d* (?:failed|errors?)\b.* =+$/,
  /^[1-9]\d* failing$/,
  /^test result: FAILED\b/,
  /^not ok \d+/,
  // Panics and crashes.
  /\bpanicked at\b/,
  /^Segmentation fault\b|^Aborted \(core dumped\)|^Killed$/,
  // npm and make.
  /^npm (?:ERR!|error) (?!A complete log|\s*$|(?:code|errno|path|syscall|command|cwd|workspace|location)\b)/,
  /^make(?:\[\d+\])?: \*\*\* .*Error \d+/,
  /^make(?:\[\d+\])?: \*\*\* No rule to make target/,
  // Shell and git.
  /^(?:[\w./-]+: )+(?:line \d+: )?[^:]*: (?:command not found|No such file or directory|Permission denied)$/,
  /^sh: \d+: .*: not found$/,
  /^CONFLICT \(/,
  /^ ?! \[(?:rejected|remote rejected)\]/,
  /^Assertion failed\b|^assertion failed\b|^AssertionError\b/,
];

// Lines that never count as the error: stack frames, carets, boilerplate, the runtime's notes.
const NOT_MEANINGFUL: readonly RegExp[] = [
  /^at\s/,
  /^[\s^~|]*$/,
  /^[-=_*#~.]{3,}$/,
  /^\[(?:exit code|timed out|aborted)\b/,
  /^npm (?:ERR!|error)\s*$/,
  /^npm (?:ERR!|error) A complete log/,
  /^File "[^"]+", line \d+/,
  /^(?:Traceback \(most recent call last\):|During handling of the above exception)/,
];

// One alternation of every pattern: a single pass per line instead of one per pattern.
const ANY_ERROR = new RegExp(ERROR_PATTERNS.map((pattern) => `(?:${pattern.source})`).join('|'));

/** True when `line` (already trimmed) reads as an error line. */
export function isErrorLine(line: string): boolean {
  if (line.length === 0 || line.length > 4000) return false;
  return ANY_ERROR.test(line);
}

/** Every line of `output` that reads as an error line, trimmed, in order, duplicates removed. */
export function findErrorLines(output: string): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  for (const raw of output.split(/\r?\n/)) {
    const line = stripAnsi(raw).trim();
    if (!isErrorLine(line) || seen.has(line)) continue;
    seen.add(line);
    found.push(line);
  }
  return found;
}

/**
 * Chooses the error lines to keep of a failing command's output: the first and the last error
 * line, then further error lines in order while `maxBytes` allows. When no pattern matches, the
 * last meaningful lines of the output (what the command printed last before failing).
 *
 * @example
 * ```ts
 * pickErrorLines('collected 3 items\nE   AssertionError: expected 3 rows, got 4\n=== 1 failed in 0.1s ===');
 * // → { lines: ['E   AssertionError: expected 3 rows, got 4', '=== 1 failed in 0.1s ==='], source: 'pattern' }
 * ```
 */
export function pickErrorLines(
  output: string,
  options: PickErrorLinesOptions = {},
): PickedErrorLines {
  const maxBytes = Math.max(80, options.maxBytes ?? 1000);
  const matched = findErrorLines(output);
  const source = matched.length > 0 ? 'pattern' : 'tail';
  const candidates = matched.length > 0 ? matched : meaningfulTail(output, 2);
  if (candidates.length === 0) return { lines: [], source };
  const lineBytes = Math.floor(maxBytes / Math.min(2, candidates.length));
  const chosen = new Set<number>([0, candidates.length - 1]);
  let used = 0;
  for (const index of chosen) used += bytesOf(clipBytes(candidates[index] as string, lineBytes));
  for (let index = 1; index < candidates.length - 1; index++) {
    const size = bytesOf(clipBytes(candidates[index] as string, lineBytes));
    if (used + size > maxBytes) break;
    chosen.add(index);
    used += size;
  }
  const lines = [...chosen]
    .sort((a, b) => a - b)
    .map((index) => clipBytes(candidates[index] as string, lineBytes));
  return { lines, source };
}

function meaningfulTail(output: string, count: number): string[] {
  const tail: string[] = [];
  const lines = output.split(/\r?\n/);
  for (let index = lines.length - 1; index >= 0 && tail.length < count; index--) {
    const line = stripAnsi(lines[index] as string).trim();
    if (line.length === 0 || NOT_MEANINGFUL.some((pattern) => pattern.test(line))) continue;
    if (!tail.includes(line)) tail.unshift(line);
  }
  return tail;
}

function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences start with ESC.
  return text.includes('\u001b') ? text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '') : text;
}

function bytesOf(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Cuts `text` to at most `limit` UTF-8 bytes (at a character boundary), marking the cut. */
function clipBytes(text: string, limit: number): string {
  if (bytesOf(text) <= limit) return text;
  let end = Math.min(text.length, limit);
  while (end > 0 && bytesOf(text.slice(0, end)) > limit - 3) end--;
  return `${text.slice(0, end)}…`;
}
