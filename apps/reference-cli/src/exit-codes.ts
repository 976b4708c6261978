/**
 * Exit codes of `spine`. Scripts rely on them; they never change meaning.
 *
 * | code | meaning |
 * | ---- | ------- |
 * | 0 | success |
 * | 1 | unexpected internal error (a bug: spine says where to report it) |
 * | 2 | bad usage, invalid configuration, an unknown, locked or unusable session or session directory, a refused image or a model that does not accept images |
 * | 3 | model or provider failure (auth, network, rate limit after retries, bad request) |
 * | 4 | a tool call was denied (approval policy, user or hook), or a `user-prompt-submit` hook blocked the prompt |
 * | 5 | replay or rerun mismatch (a hash or a tool result differs from the record) |
 * | 6 | the step limit was reached before the task finished |
 * | 7 | `spine doctor` found a check that failed |
 * | 8 | a cost or token budget was reached (`--max-cost`, `--max-tokens`); raise it and continue |
 * | 9 | the model was stuck in a loop: it went on repeating itself after it was told (`turn/end` reason `stuck`) |
 * | 130 | aborted (Ctrl-C / SIGINT, SIGTERM, or SIGHUP when the terminal goes away) |
 */
export const EXIT_CODES = {
  /** Success. */
  ok: 0,
  /** Unexpected internal error: a bug, and nothing else. */
  internal: 1,
  /** Bad usage, invalid configuration, or an unknown, locked or unusable session or session directory. */
  usage: 2,
  /** Model or provider failure. */
  model: 3,
  /** A tool call was denied. */
  toolDenied: 4,
  /** Replay or rerun mismatch. */
  mismatch: 5,
  /** The step limit was reached. */
  stepLimit: 6,
  /** `spine doctor` found a check that failed (a missing key, an unreachable provider, no sandbox …). */
  doctorFailed: 7,
  /** A cost or token budget was reached before the task finished. */
  budget: 8,
  /** The model was stuck in a loop (turn reason `stuck`; the `loop/detected` event has the evidence). */
  stuck: 9,
  /** Aborted: Ctrl-C (twice in the REPL), SIGTERM, or SIGHUP when the terminal goes away. */
  aborted: 130,
} as const;

/** One of {@link EXIT_CODES}' values. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];
