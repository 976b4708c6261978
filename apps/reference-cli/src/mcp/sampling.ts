import type { McpSamplingHandler } from '@spine/mcp';
import type { Message, ModelClient, SessionLog } from '@spine/protocol';

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

/**
 * Answers MCP sampling requests with the session's model: the server's messages (text only) go as
 * one request without tools, and the request and the answer are recorded as `sampling/answered`
 * at the step whose tool call caused them, so the log shows everything the model produced.
 */
export function createSamplingAnswer(options: {
  model: () => { client: ModelClient; modelId: string };
  session: SessionLog;
  position: () => { turn: number; step: number } | undefined;
}): McpSamplingHandler {
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
