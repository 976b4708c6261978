import type { AttemptBody } from '@spine/protocol';
import {
  type CompactionOutcome,
  isModelError,
  type RetryPolicy,
  SpineError,
} from '@spine/protocol';
import {
  CompactionFailedError,
  CompactionUnavailableError,
  ContextOverflowError,
  ModelRequestFailedError,
} from './errors.js';
import type { OverflowDiagnosis } from './overflow.js';

/** What the request-error chain knows about a failed attempt. */
export interface RequestErrorContext {
  /** What the model client threw. */
  error: unknown;
  /** The number of the attempt that failed (1-based). */
  attempt: number;
  /** Compactions already run for overflows in this step. */
  overflowCompactions: number;
  /** The policy for transient failures. */
  retryPolicy: RetryPolicy;
  /** The model's context window, for messages. */
  contextWindow: number;
  /** Runs an overflow compaction; absent when no engine is configured. */
  compact: (() => Promise<CompactionOutcome | undefined>) | undefined;
  /** Says what does not fit the window (for the error when compaction cannot help). */
  diagnose?: () => OverflowDiagnosis;
}

/** A handler's verdict: retry (after a delay) or fail the turn with a clear error. */
export type RequestErrorDecision = RetryVerdict | FailVerdict;

/** Retry the step's request after `delayMs`. */
export interface RetryVerdict {
  /** Always true. */
  retry: true;
  /** Wait before the next attempt, in ms. */
  delayMs: number;
  /** Why, for `llm/retry`. */
  reason: string;
  /** The compaction that made room, on the overflow path. */
  compactionId?: number;
}

/** Fail the turn with `error`. */
export interface FailVerdict {
  /** Always false. */
  retry: false;
  /** The error the turn ends with; its message says what to do. */
  error: SpineError;
}

/** One link of the chain; `undefined` passes the error on to the next link. */
export type RequestErrorHandler = (
  context: RequestErrorContext,
) => Promise<RequestErrorDecision | undefined>;

const MAX_OVERFLOW_COMPACTIONS = 2;

/**
 * The error for an overflow compaction cannot fix: a {@link ContextOverflowError} naming what
 * does not fit when one part alone is too big (or compaction ran and failed), else `fallback`.
 */
function overflowError(
  context: RequestErrorContext,
  compaction: string,
  fallback: () => SpineError,
): SpineError {
  const diagnosis = context.diagnose?.();
  if (!diagnosis || (diagnosis.part === 'history' && compaction === 'is not configured'))
    return fallback();
  return new ContextOverflowError({ diagnosis, compaction, cause: context.error });
}

/** Context overflow: compact and retry, or fail with a message that says what to do. */
const overflowHandler: RequestErrorHandler = async (context) => {
  if (!SpineError.isInstance(context.error) || context.error.code !== 'CONTEXT_OVERFLOW')
    return undefined;
  if (!context.compact) {
    const error = overflowError(
      context,
      'is not configured',
      () =>
        new CompactionUnavailableError({
          contextWindow: context.contextWindow,
          cause: context.error,
        }),
    );
    return { retry: false, error };
  }
  if (context.overflowCompactions >= MAX_OVERFLOW_COMPACTIONS) {
    const error = overflowError(
      context,
      `ran ${context.overflowCompactions} times in this step without making room`,
      () =>
        new CompactionFailedError({
          status: 'did not bring the request under the limit',
          detail: `${context.overflowCompactions} compactions in this step`,
          cause: context.error,
        }),
    );
    return { retry: false, error };
  }
  const outcome = await context.compact();
  if (outcome?.status !== 'compacted') {
    const status = outcome?.status ?? 'failed';
    const detail = outcome?.message ? ` (${outcome.message})` : '';
    const error = overflowError(
      context,
      `could not make room: ${status}${detail}`,
      () =>
        new CompactionFailedError({
          status,
          ...(outcome?.message ? { detail: outcome.message } : {}),
          cause: context.error,
        }),
    );
    return { retry: false, error };
  }
  const decision: RequestErrorDecision = {
    retry: true,
    delayMs: 0,
    reason: 'context overflow: compacted, retrying',
  };
  if (outcome.compactionId !== undefined) decision.compactionId = outcome.compactionId;
  return decision;
};

/** Transient failures: ask the retry policy. */
const retryHandler: RequestErrorHandler = async (context) => {
  const decision = context.retryPolicy.decide(context.error, context.attempt);
  if (decision.retry) return { retry: true, delayMs: decision.delayMs, reason: decision.reason };
  return {
    retry: false,
    error: new ModelRequestFailedError({
      attempts: context.attempt,
      reason: decision.reason,
      cause: context.error,
    }),
  };
};

/** The chain, in order: overflow → retry policy. The retry handler always decides. */
export const REQUEST_ERROR_CHAIN: readonly RequestErrorHandler[] = [overflowHandler, retryHandler];

/** Runs the chain until a handler decides. */
export async function handleRequestError(
  context: RequestErrorContext,
): Promise<RequestErrorDecision> {
  for (const handler of REQUEST_ERROR_CHAIN) {
    const decision = await handler(context);
    if (decision) return decision;
  }
  return {
    retry: false,
    error: new ModelRequestFailedError({
      attempts: context.attempt,
      reason: 'no handler',
      cause: context.error,
    }),
  };
}

/** The `assistant/attempt` body of an attempt whose request failed with `error`. */
export function failedAttempt(
  error: unknown,
  request: number,
  attempt: number,
  aborted: boolean,
): AttemptBody {
  const record: AttemptBody = { request, attempt, outcome: aborted ? 'aborted' : 'error' };
  if (SpineError.isInstance(error)) record.code = error.code;
  record.message = error instanceof Error ? error.message : String(error);
  if (isModelError(error)) {
    record.retryable = error.retryable;
    if (error.status !== undefined) record.status = error.status;
  }
  return record;
}
