// Public API of @spine/protocol/testing. Every export here is a semver promise.
// The framework-free runner and assertions every Spine conformance kit is built on (the kits of
// @spine/llm, @spine/compaction, @spine/web-tools and @spine/tool-runtime), so a kit for another
// interface has the same shape: cases with a `run`, and a `check…()` that reports, never throws.

/** A conformance check that did not hold; its message says what was expected and what happened. */
export class ConformanceFailure extends Error {
  override readonly name = 'ConformanceFailure';
}

/**
 * One scenario of a conformance kit. `run` resolves when the implementation behaves as the
 * interface's contract says and throws an `Error` saying what was expected and what it did
 * otherwise. Register one test per case in any framework.
 */
export interface ConformanceCase<Fixture> {
  /** What the implementation must do, as a sentence (use it as the test name). */
  readonly name: string;
  /**
   * Runs the scenario with `fixture`, which makes fresh implementations (and sessions).
   *
   * @throws an {@link Error} when the implementation does not behave as the scenario expects.
   */
  run(fixture: Fixture): Promise<void>;
}

/** One case an implementation failed, in {@link ConformanceReport}. */
export interface ConformanceCaseFailure {
  /** The case's name. */
  name: string;
  /** What was expected and what the implementation did. */
  message: string;
}

/** What a `check…()` function of a kit resolves to. */
export interface ConformanceReport {
  /** True when every case passed. */
  ok: boolean;
  /** How many cases passed. */
  passed: number;
  /** The cases that failed, in run order. */
  failed: ConformanceCaseFailure[];
}

/** Options of the kits' `check…()` functions. */
export interface CheckOptions {
  /** Milliseconds one case may take before it is reported as failed (default 30,000). */
  timeoutMs?: number;
  /** Stops before the next case; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** How long a `check…()` function lets one case run before reporting it as failed. */
export const DEFAULT_CASE_TIMEOUT_MS = 30_000;

/** Throws a {@link ConformanceFailure} with `message` unless `condition` holds. */
export function ensure(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ConformanceFailure(message);
}

/** A short printable form of a value for failure messages. */
export function show(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint' || value === undefined) {
    return String(value);
  }
  let text: string;
  try {
    text =
      typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/** "threw Name: message" for an error, or "rejected with <value>" for anything else. */
export function describeError(error: unknown): string {
  return error instanceof Error
    ? `threw ${error.name}: ${error.message}`
    : `rejected with ${show(error)}`;
}

/** Runs `action`; a throw becomes a failure saying that `what` was expected to work. */
export async function works<T>(action: () => T | Promise<T>, what: string): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof ConformanceFailure) throw error;
    throw new ConformanceFailure(`${what}: expected it to work, but it ${describeError(error)}`);
  }
}

async function outcomeOf(run: () => Promise<void>, timeoutMs: number): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(
      () => resolve(`did not finish within ${timeoutMs} ms (a call never settled?)`),
      timeoutMs,
    );
  });
  const result = run().then(
    () => undefined,
    (error: unknown) =>
      error instanceof ConformanceFailure ? error.message : `unexpectedly ${describeError(error)}`,
  );
  try {
    return await Promise.race([result, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs every case with `fixture` and reports which failed and why; a failure never throws. */
export async function runCases<Fixture>(
  cases: readonly ConformanceCase<Fixture>[],
  fixture: Fixture,
  options: CheckOptions = {},
): Promise<ConformanceReport> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS;
  const failed: ConformanceCaseFailure[] = [];
  let passed = 0;
  for (const conformanceCase of cases) {
    options.signal?.throwIfAborted();
    const message = await outcomeOf(() => conformanceCase.run(fixture), timeoutMs);
    if (message === undefined) passed++;
    else failed.push({ name: conformanceCase.name, message });
  }
  return { ok: failed.length === 0, passed, failed };
}
