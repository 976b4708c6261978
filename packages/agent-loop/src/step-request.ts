import {
  type AssistantMessage,
  type FinishReason,
  isModelError,
  ModelError,
  type ModelRequest,
  promptTokensOf,
  SpineError,
  type Usage,
} from '@spine/protocol';
import { Aborted, compact, Failed, type LoopContext } from './loop-context.js';
import { diagnoseOverflow } from './overflow.js';
import type { AttemptBody, PrefixChangeCause } from './records.js';
import type { BuildRequestInput } from './request-builder.js';
import { handleRequestError, type RequestErrorContext } from './request-error.js';
import { sleep } from './retry.js';
import type { PromptSnapshot } from './system-prompt.js';

const NO_OPTIONS: { signal?: AbortSignal } = {};

/** The outcome of a step's successful attempt. */
export interface Streamed {
  message: AssistantMessage;
  finishReason: FinishReason;
  rawFinishReason?: string;
  usage?: Usage;
  headerSeq: number;
  /** What broke the request's prefix (empty when it extended the previous one). */
  prefixCauses: PrefixChangeCause[];
  attempt: number;
}

/**
 * Runs the attempts of one step: build and record the request, stream it, and on failure
 * record `assistant/attempt` and let the request-error chain decide (compact, retry or fail).
 */
export async function attempts(
  context: LoopContext,
  snapshot: PromptSnapshot,
  position: { turn: number; step: number; attempt: number },
  signal?: AbortSignal,
): Promise<Streamed> {
  const { session } = context;
  const { turn, step } = position;
  const at = { turn, step };
  let attempt = position.attempt;
  let overflowCompactions = 0;
  for (;;) {
    // Written after any compaction of this step, so the model always sees the current state
    // (nothing is written when it is unchanged and still on the surface).
    context.projection.project(snapshot.contexts, at);
    const measure = context.meter?.measure({
      session,
      system: snapshot.system,
      tools: snapshot.tools,
    });
    const input: BuildRequestInput = {
      snapshot,
      modelId: context.modelId,
      provider: context.model.provider,
      turn,
      step,
      attempt,
    };
    if (context.maxOutputTokens !== undefined) input.maxOutputTokens = context.maxOutputTokens;
    if (context.reasoning !== undefined) input.reasoning = context.reasoning;
    if (measure) input.estimatedTokens = measure.tokens;
    const built = context.builder.buildRequest(input, signal ? { signal } : NO_OPTIONS);
    try {
      const streamed = await stream(context, built.request, at, signal);
      if (measure && streamed.usage) {
        context.meter?.observe({
          rawTokens: measure.rawTokens,
          reportedTokens: promptTokensOf(streamed.usage),
        });
      }
      const prefixCauses = built.header.prefix.extends ? [] : built.header.prefix.causes;
      const result: Streamed = {
        message: streamed.message,
        finishReason: streamed.finishReason,
        headerSeq: built.headerSeq,
        prefixCauses,
        attempt,
      };
      if (streamed.rawFinishReason !== undefined) result.rawFinishReason = streamed.rawFinishReason;
      if (streamed.usage) result.usage = streamed.usage;
      return result;
    } catch (error) {
      const record: AttemptBody = {
        request: built.headerSeq,
        attempt,
        outcome: signal?.aborted ? 'aborted' : 'error',
      };
      if (SpineError.isInstance(error)) record.code = error.code;
      record.message = error instanceof Error ? error.message : String(error);
      if (isModelError(error)) {
        record.retryable = error.retryable;
        if (error.status !== undefined) record.status = error.status;
      }
      session.append('assistant/attempt', record, at);
      if (signal?.aborted) throw new Aborted('stream');
      const errorContext: RequestErrorContext = {
        error,
        attempt,
        overflowCompactions,
        retryPolicy: context.retryPolicy,
        contextWindow: context.contextWindow,
        compact: context.compaction
          ? () => compact(context, snapshot, 'overflow', at, signal)
          : undefined,
        diagnose: () =>
          diagnoseOverflow({
            session,
            system: snapshot.system,
            tools: snapshot.tools,
            contextWindow: context.contextWindow,
            ...(context.maxOutputTokens === undefined
              ? {}
              : { maxOutputTokens: context.maxOutputTokens }),
            ...(context.meter ? { meter: context.meter } : {}),
          }),
      };
      const decision = await handleRequestError(errorContext);
      if (!decision.retry) throw new Failed(decision.error);
      if (decision.compactionId !== undefined) overflowCompactions++;
      session.append(
        'llm/retry',
        {
          failedAttempt: attempt,
          nextAttempt: attempt + 1,
          delayMs: decision.delayMs,
          reason: decision.reason,
          ...(record.code ? { code: record.code } : {}),
          ...(decision.compactionId !== undefined ? { compactionId: decision.compactionId } : {}),
        },
        at,
      );
      context.emit('retry', {
        ...at,
        failedAttempt: attempt,
        nextAttempt: attempt + 1,
        delayMs: decision.delayMs,
        reason: decision.reason,
      });
      try {
        await sleep(decision.delayMs, signal);
      } catch {
        throw new Aborted('retry-wait');
      }
      attempt++;
      session.append('llm/retry-started', { attempt }, at);
    }
  }
}

async function stream(
  context: LoopContext,
  request: ModelRequest,
  at: { turn: number; step: number },
  signal?: AbortSignal,
): Promise<Omit<Streamed, 'headerSeq' | 'attempt' | 'prefixCauses'>> {
  for await (const event of context.model.stream(request, signal ? { signal } : NO_OPTIONS)) {
    switch (event.type) {
      case 'text-delta':
        if (context.listens('text-delta')) context.emit('text-delta', { ...at, text: event.text });
        break;
      case 'reasoning-delta':
        if (context.listens('reasoning-delta')) {
          context.emit('reasoning-delta', { ...at, text: event.text });
        }
        break;
      case 'finish': {
        if (event.finishReason === 'context-overflow' && event.message.content.length === 0) {
          // Some providers end the stream instead of failing the request: same path as a 400.
          throw new ModelError({
            code: 'CONTEXT_OVERFLOW',
            message: `the model stopped: the request exceeds its context window (${event.rawFinishReason ?? 'context-overflow'})`,
            provider: context.model.provider,
            retryable: false,
          });
        }
        const result: Omit<Streamed, 'headerSeq' | 'attempt' | 'prefixCauses'> = {
          message: event.message,
          finishReason: event.finishReason,
        };
        if (event.rawFinishReason !== undefined) result.rawFinishReason = event.rawFinishReason;
        if (event.usage) result.usage = event.usage;
        return result;
      }
    }
  }
  throw new ModelError({
    code: 'STREAM_BROKEN',
    message: 'the model stream ended without a finish event',
    provider: context.model.provider,
    retryable: true,
  });
}
