import { pieces } from './openai-chunks.js';
import type { ScriptedCompletion } from './scripted-reply.js';

/** Fields shared by the events of one scripted Anthropic message. */
export interface MessageContext {
  id: string;
  model: string;
}

const STOP_REASONS: Record<string, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
};

function stopReason(reply: ScriptedCompletion): string {
  if (reply.finishReason !== undefined)
    return STOP_REASONS[reply.finishReason] ?? reply.finishReason;
  return reply.toolCalls?.length ? 'tool_use' : 'end_turn';
}

function signatureOf(text: string): string {
  return `sig_${Buffer.from(text).toString('base64').slice(0, 32)}`;
}

/** Anthropic `usage` for a scripted reply: cache reads and uncached input kept apart. */
export function anthropicUsage(
  prompt: { promptTokens: number; hitTokens: number },
  outputTokens: number,
) {
  return {
    input_tokens: prompt.promptTokens - prompt.hitTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: prompt.hitTokens,
    output_tokens: outputTokens,
  };
}

/** The `[event, data]` pairs of a scripted completion in the Anthropic Messages stream format. */
export function anthropicEvents(
  reply: ScriptedCompletion,
  context: MessageContext,
  usage: ReturnType<typeof anthropicUsage>,
): [string, string][] {
  const size = Math.max(1, reply.chunkSize ?? 16);
  const out: [string, string][] = [];
  const push = (data: Record<string, unknown>): void => {
    out.push([String(data.type), JSON.stringify(data)]);
  };
  push({
    type: 'message_start',
    message: {
      id: context.id,
      type: 'message',
      role: 'assistant',
      model: context.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  push({ type: 'ping' });
  let index = 0;
  if (reply.reasoning !== undefined) {
    push({
      type: 'content_block_start',
      index,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
    for (const piece of pieces(reply.reasoning, size)) {
      push({
        type: 'content_block_delta',
        index,
        delta: { type: 'thinking_delta', thinking: piece },
      });
    }
    push({
      type: 'content_block_delta',
      index,
      delta: { type: 'signature_delta', signature: signatureOf(reply.reasoning) },
    });
    push({ type: 'content_block_stop', index });
    index++;
  }
  if (reply.text !== undefined && reply.text !== '') {
    push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    for (const piece of pieces(reply.text, size)) {
      push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    }
    push({ type: 'content_block_stop', index });
    index++;
  }
  for (const [position, call] of (reply.toolCalls ?? []).entries()) {
    const id = call.id ?? `toolu_${String(position).padStart(2, '0')}_${context.id}`;
    push({
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id, name: call.name, input: {} },
    });
    for (const piece of pieces(call.arguments, size)) {
      push({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: piece },
      });
    }
    push({ type: 'content_block_stop', index });
    index++;
  }
  push({
    type: 'message_delta',
    delta: { stop_reason: stopReason(reply), stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  push({ type: 'message_stop' });
  return out;
}

/** The whole non-streaming Anthropic message body of a scripted completion. */
export function anthropicBody(
  reply: ScriptedCompletion,
  context: MessageContext,
  usage: ReturnType<typeof anthropicUsage>,
): string {
  const content: Record<string, unknown>[] = [];
  if (reply.reasoning !== undefined) {
    content.push({
      type: 'thinking',
      thinking: reply.reasoning,
      signature: signatureOf(reply.reasoning),
    });
  }
  if (reply.text) content.push({ type: 'text', text: reply.text });
  for (const [position, call] of (reply.toolCalls ?? []).entries()) {
    let input: unknown;
    try {
      input = JSON.parse(call.arguments);
    } catch {
      input = {};
    }
    content.push({
      type: 'tool_use',
      id: call.id ?? `toolu_${String(position).padStart(2, '0')}_${context.id}`,
      name: call.name,
      input,
    });
  }
  return JSON.stringify({
    id: context.id,
    type: 'message',
    role: 'assistant',
    model: context.model,
    content,
    stop_reason: stopReason(reply),
    stop_sequence: null,
    usage,
  });
}
