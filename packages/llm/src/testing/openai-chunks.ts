import type { ScriptedCompletion, ScriptedUsage } from './scripted-reply.js';

/** Fields shared by every chunk of one scripted completion. */
export interface ChunkContext {
  id: string;
  model: string;
  created: number;
}

/** Wire usage object in DeepSeek's shape (OpenAI's `prompt_tokens_details.cached_tokens` included). */
export function wireUsage(
  prompt: { promptTokens: number; hitTokens: number },
  completionTokens: number,
  override: ScriptedUsage = {},
): Record<string, unknown> {
  const promptTokens = override.promptTokens ?? prompt.promptTokens;
  const hit = Math.min(promptTokens, override.cacheHitTokens ?? prompt.hitTokens);
  const completion = override.completionTokens ?? completionTokens;
  const usage: Record<string, unknown> = {
    prompt_tokens: promptTokens,
    completion_tokens: completion,
    total_tokens: promptTokens + completion,
    prompt_tokens_details: { cached_tokens: hit },
  };
  if (override.reasoningTokens !== undefined) {
    usage.completion_tokens_details = { reasoning_tokens: override.reasoningTokens };
  }
  usage.prompt_cache_hit_tokens = hit;
  usage.prompt_cache_miss_tokens = promptTokens - hit;
  return usage;
}

/** Splits `text` into pieces of at most `size` characters (at least one piece for non-empty text). */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function chunk(
  context: ChunkContext,
  delta: unknown,
  finishReason: string | null,
  usage: unknown,
): string {
  return JSON.stringify({
    id: context.id,
    object: 'chat.completion.chunk',
    created: context.created,
    model: context.model,
    system_fingerprint: 'fp_spine_scripted',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage,
  });
}

/** The `data:` payloads (JSON text, without `[DONE]`) of a scripted completion, DeepSeek style. */
export function completionChunks(
  reply: ScriptedCompletion,
  context: ChunkContext,
  usage: Record<string, unknown>,
): string[] {
  const size = Math.max(1, reply.chunkSize ?? 16);
  const out: string[] = [];
  const thinking = reply.reasoning !== undefined;
  out.push(
    chunk(
      context,
      thinking
        ? { role: 'assistant', content: null, reasoning_content: '' }
        : { role: 'assistant', content: '' },
      null,
      null,
    ),
  );
  for (const piece of pieces(reply.reasoning ?? '', size)) {
    out.push(chunk(context, { content: null, reasoning_content: piece }, null, null));
  }
  for (const piece of pieces(reply.text ?? '', size)) {
    out.push(
      chunk(
        context,
        thinking ? { content: piece, reasoning_content: null } : { content: piece },
        null,
        null,
      ),
    );
  }
  (reply.toolCalls ?? []).forEach((call, index) => {
    const id = call.id ?? `call_${String(index).padStart(2, '0')}_${context.id.slice(0, 12)}`;
    out.push(
      chunk(
        context,
        {
          tool_calls: [
            { index, id, type: 'function', function: { name: call.name, arguments: '' } },
          ],
        },
        null,
        null,
      ),
    );
    for (const piece of pieces(call.arguments, size)) {
      out.push(
        chunk(context, { tool_calls: [{ index, function: { arguments: piece } }] }, null, null),
      );
    }
  });
  const finish = reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop');
  out.push(chunk(context, { content: '' }, finish, usage));
  return out;
}

/** The whole non-streaming `chat.completion` body of a scripted completion. */
export function completionBody(
  reply: ScriptedCompletion,
  context: ChunkContext,
  usage: Record<string, unknown>,
): string {
  const message: Record<string, unknown> = { role: 'assistant', content: reply.text ?? '' };
  if (reply.reasoning !== undefined) message.reasoning_content = reply.reasoning;
  if (reply.toolCalls?.length) {
    message.tool_calls = reply.toolCalls.map((call, index) => ({
      index,
      id: call.id ?? `call_${String(index).padStart(2, '0')}_${context.id.slice(0, 12)}`,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return JSON.stringify({
    id: context.id,
    object: 'chat.completion',
    created: context.created,
    model: context.model,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop'),
      },
    ],
    usage,
    system_fingerprint: 'fp_spine_scripted',
  });
}
