import type { CompactionContext, CompactionOutcome } from '@spine/protocol';
import type { StepContext } from './step.js';
import type { PromptSnapshot } from './system-prompt.js';

/**
 * The fold: runs the compaction engine (if any) and reports outcomes the user should see to
 * live listeners. The caller checks the signal afterwards.
 */
export async function runCompaction(
  context: StepContext,
  snapshot: PromptSnapshot,
  reason: 'pressure' | 'overflow',
  at: { turn: number; step: number },
  signal?: AbortSignal,
): Promise<CompactionOutcome | undefined> {
  const engine = context.compaction;
  if (!engine) return undefined;
  const request: CompactionContext = {
    session: context.session,
    reason,
    contextWindow: context.contextWindow,
    system: snapshot.system,
    tools: snapshot.tools,
    ...at,
  };
  if (context.maxOutputTokens !== undefined) request.maxOutputTokens = context.maxOutputTokens;
  if (signal) request.signal = signal;
  const outcome = await engine.compact(request);
  if (signal?.aborted) return outcome;
  // Failures and a tripped breaker reach the user too. Silent: 'not-needed', and 'disabled' at the
  // pre-step check (it would repeat every step; on overflow it explains why the turn fails).
  const silent =
    outcome.status === 'not-needed' || (outcome.status === 'disabled' && reason === 'pressure');
  if (!silent) context.emit('compaction', { ...at, outcome });
  return outcome;
}
