/**
 * Exit codes of `spine`. Scripts rely on them; they never change meaning.
 *
 * | code | meaning |
 * | ---- | ------- |
 * | 0 | success |
 * | 1 | unexpected internal error |
 * | 2 | bad usage or invalid configuration |
 * | 3 | model or provider failure (auth, network, rate limit after retries, bad request) |
 * | 4 | a tool call was denied (approval policy, user or hook) |
 * | 5 | replay or rerun mismatch (a hash or a tool result differs from the record) |
 * | 6 | the step limit was reached before the task finished |
 * | 130 | aborted (Ctrl-C / SIGINT) |
 */
export const EXIT_CODES = {
  ok: 0,
  internal: 1,
  usage: 2,
  model: 3,
  toolDenied: 4,
  mismatch: 5,
  stepLimit: 6,
  aborted: 130,
} as const;

/** One of {@link EXIT_CODES}' values. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];
