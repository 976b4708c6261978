import { modelError } from '../errors.js';

/**
 * The JSON value of one SSE event's `data`. A provider sends JSON in every data line (OpenAI's
 * `[DONE]` aside, which the caller handles first), so data that does not parse means part of
 * the stream is unreadable: answer text or tool-call arguments may be lost inside it. Skipping
 * it would hand on an answer with a hole, so the attempt is broken, as a stream cut short is
 * (openai-node and the Anthropic SDK throw on it too).
 *
 * @throws a {@link ModelError} code STREAM_BROKEN (retryable) when `data` is not JSON.
 */
export function parseEventData(provider: string, data: string): unknown {
  try {
    return JSON.parse(data);
  } catch (error) {
    const preview = JSON.stringify(data.length > 120 ? `${data.slice(0, 120)}…` : data);
    throw modelError(
      provider,
      'STREAM_BROKEN',
      `The ${provider} stream sent a data line that is not JSON (${preview}); part of the answer is unreadable, retry the request.`,
      { cause: error },
    );
  }
}
