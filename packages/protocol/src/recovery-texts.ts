// The one wording of the results the model sees for tool calls a failure interrupted. Every
// package that answers such a call (session recovery, the agent loop, the tool scheduler) uses
// these, so the model learns one phrase for "may have run" and one for "never ran".

/**
 * Result content for a tool call that started but whose outcome is unknown (`outcome: 'unknown'`):
 * it may have had effects, so the model should check before running it again.
 *
 * @param why - What interrupted it, as a clause: `the process stopped`, `the run was aborted`.
 * @example
 * ```ts
 * outcomeUnknownText('the process stopped');
 * // 'outcome unknown: the process stopped while this tool was running; it may have had effects. Verify the state before retrying.'
 * ```
 */
export function outcomeUnknownText(why: string): string {
  return `outcome unknown: ${why} while this tool was running; it may have had effects. Verify the state before retrying.`;
}

/**
 * Result content for a tool call that never started (`outcome: 'not-started'`): nothing ran, so
 * running it again is safe.
 *
 * @param why - What stopped it, as a clause: `the process stopped`, `the run was aborted`.
 * @example
 * ```ts
 * notStartedText('the run was aborted');
 * // 'not started: the run was aborted before this tool ran. Retry it if it is still needed.'
 * ```
 */
export function notStartedText(why: string): string {
  return `not started: ${why} before this tool ran. Retry it if it is still needed.`;
}
