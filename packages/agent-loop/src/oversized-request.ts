import { ModelError, type SpineError } from '@spine/protocol';
import { diagnoseOverflow } from './overflow.js';
import { handleRequestError, type RequestErrorContext } from './request-error.js';
import { runCompaction } from './run-compaction.js';
import type { StepContext } from './step.js';
import type { PromptSnapshot } from './system-prompt.js';

/**
 * Whether a request of `tokens` (the meter's estimate) cannot fit the window. The output cap
 * counts only when one is set: only then is it sent, and a provider holds the prompt to the
 * window less the cap; without one the answer takes what room is left.
 */
export function exceedsWindow(context: StepContext, tokens: number): boolean {
  return tokens > context.contextWindow - (context.maxOutputTokens ?? 0);
}

/**
 * A request the meter says cannot fit the window is not sent (the provider would refuse it, or
 * bill a truncated prompt). It takes the path of a provider's refusal without the network: an
 * overflow compaction (`compacted`: measure again), or the error the step fails with, which
 * says what does not fit and what to do.
 */
export async function refuseOversizedRequest(
  context: StepContext,
  snapshot: PromptSnapshot,
  input: { at: { turn: number; step: number }; tokens: number; overflowCompactions: number },
  signal?: AbortSignal,
): Promise<
  | { status: 'compacted' }
  | { status: 'aborted'; phase: 'compaction' }
  | { status: 'failed'; error: SpineError }
> {
  const { at, tokens } = input;
  const cap = context.maxOutputTokens;
  const room = cap === undefined ? '' : ` less the output cap of ${cap}`;
  const error = new ModelError({
    code: 'CONTEXT_OVERFLOW',
    message: `not sent: the request would take about ${tokens} tokens, more than the context window of ${context.contextWindow}${room}`,
    provider: context.model.provider,
    retryable: false,
  });
  const { aborted, ...hooks } = overflowHooks(context, snapshot, at, signal);
  const decision = await handleRequestError({
    error,
    attempt: 1,
    overflowCompactions: input.overflowCompactions,
    retryPolicy: context.retryPolicy,
    contextWindow: context.contextWindow,
    ...hooks,
  });
  if (aborted()) return { status: 'aborted', phase: 'compaction' };
  if (!decision.retry) return { status: 'failed', error: decision.error };
  return { status: 'compacted' };
}

/**
 * The overflow hooks of the request-error chain for one step: an overflow compaction (`aborted`
 * says afterwards whether the signal stopped it) and the diagnosis of what does not fit.
 */
export function overflowHooks(
  context: StepContext,
  snapshot: PromptSnapshot,
  at: { turn: number; step: number },
  signal?: AbortSignal,
): Pick<RequestErrorContext, 'compact' | 'diagnose'> & { aborted(): boolean } {
  let aborted = false;
  return {
    aborted: () => aborted,
    compact: context.compaction
      ? async () => {
          const outcome = await runCompaction(context, snapshot, 'overflow', at, signal);
          aborted = signal?.aborted === true;
          return outcome;
        }
      : undefined,
    diagnose: () =>
      diagnoseOverflow({
        session: context.session,
        system: snapshot.system,
        tools: snapshot.tools,
        contextWindow: context.contextWindow,
        ...(context.maxOutputTokens === undefined
          ? {}
          : { maxOutputTokens: context.maxOutputTokens }),
        ...(context.meter ? { meter: context.meter } : {}),
      }),
  };
}
