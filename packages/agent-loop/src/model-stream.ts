import {
  type AssistantMessage,
  type FinishReason,
  ModelError,
  type ModelRequest,
  type Usage,
} from '@spine/protocol';
import type { StepContext } from './step.js';

const NO_OPTIONS: { signal?: AbortSignal } = {};

/** The model's answer to one request, as its stream finished. */
export interface ModelAnswer {
  /** The final assistant message. */
  message: AssistantMessage;
  /** Why the model stopped. */
  finishReason: FinishReason;
  /** The provider's own finish reason, when it differs. */
  rawFinishReason?: string;
  /** Provider-reported usage. */
  usage?: Usage;
}

/**
 * Streams `request` to the model, forwarding text and reasoning deltas to live listeners, and
 * resolves with the finished answer. A stream that ends with a context overflow and no content,
 * or without a finish event, rejects with a {@link ModelError} (the request-error chain decides).
 */
export async function readModelStream(
  context: StepContext,
  request: ModelRequest,
  at: { turn: number; step: number },
  signal?: AbortSignal,
): Promise<ModelAnswer> {
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
        const answer: ModelAnswer = { message: event.message, finishReason: event.finishReason };
        if (event.rawFinishReason !== undefined) answer.rawFinishReason = event.rawFinishReason;
        if (event.usage) answer.usage = event.usage;
        return answer;
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
