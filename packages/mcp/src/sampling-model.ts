import type { Message, ModelClient, SessionLog } from '@spine/protocol';
import type { McpSamplingHandler } from './requests.js';

type SamplingResult = Awaited<ReturnType<McpSamplingHandler>>;

function textOf(content: unknown): string {
  const parts = Array.isArray(content) ? content : [content];
  return parts
    .map((part) => {
      const block = part as { type?: string; text?: string };
      return block.type === 'text' && typeof block.text === 'string'
        ? block.text
        : `[${block.type ?? 'unknown'} content not sent]`;
    })
    .join('\n');
}

const STOP_REASONS: Record<string, string> = { stop: 'endTurn', length: 'maxTokens' };

/** Options of {@link createModelSamplingHandler}. */
export interface ModelSamplingHandlerOptions {
  /** The model that answers, read at each request (the session may switch models). */
  model: () => { client: ModelClient; modelId: string };
  /** The session the exchange is recorded in (`sampling/answered`). */
  session: Pick<SessionLog, 'append'>;
  /** The turn and step whose tool call caused the request, when one is running. */
  position: () => { turn: number; step: number } | undefined;
}

/**
 * Answers MCP sampling requests with the session's model: the server's messages (text only; other
 * content becomes a `[… content not sent]` marker) go as one request without tools, and the
 * request and the answer are recorded as `sampling/answered` at the step whose tool call caused
 * them, so the log shows everything the model produced. For `McpManagerOptions.answerSampling`.
 *
 * @example
 * ```ts
 * const manager = createMcpManager({
 *   servers, cwd,
 *   answerSampling: createModelSamplingHandler({ model: () => ({ client, modelId }), session, position: () => undefined }),
 * });
 * ```
 */
export function createModelSamplingHandler(
  options: ModelSamplingHandlerOptions,
): McpSamplingHandler {
  return async ({ server, params, signal }): Promise<SamplingResult> => {
    const { client, modelId } = options.model();
    const sent = params.messages.map((message) => ({
      role: message.role,
      text: textOf(message.content),
    }));
    const messages: Message[] = sent.map((message) =>
      message.role === 'assistant'
        ? { role: 'assistant', content: [{ type: 'text', text: message.text }] }
        : { role: 'user', content: message.text },
    );
    let text = '';
    let finishReason = 'other';
    let usage: { inputTokens: number; outputTokens: number } | undefined;
    for await (const event of client.stream(
      {
        model: modelId,
        system: params.systemPrompt ?? '',
        messages,
        tools: [],
        ...(params.maxTokens ? { maxOutputTokens: params.maxTokens } : {}),
        ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
      },
      { signal },
    )) {
      if (event.type !== 'finish') continue;
      text = event.message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      finishReason = event.finishReason;
      if (event.usage)
        usage = { inputTokens: event.usage.inputTokens, outputTokens: event.usage.outputTokens };
    }
    options.session.append(
      'sampling/answered',
      {
        source: server,
        model: modelId,
        ...(params.systemPrompt ? { system: params.systemPrompt } : {}),
        messages: sent,
        text,
        finishReason,
        ...(usage ? { usage } : {}),
      },
      options.position() ?? {},
    );
    return {
      role: 'assistant',
      model: modelId,
      content: { type: 'text', text },
      stopReason: STOP_REASONS[finishReason] ?? finishReason,
    };
  };
}
