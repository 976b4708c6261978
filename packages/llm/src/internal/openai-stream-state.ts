import type { FinishReason, ModelStreamEvent, Usage } from '@spine/protocol';
import { classifyError } from '../classify-error.js';
import { modelError } from '../errors.js';
import { usageFromOpenAI } from '../usage-map.js';
import { parseEventData } from './event-json.js';
import { MessageBuilder } from './message-builder.js';

type Json = Record<string, unknown>;

const FINISH_REASONS: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  content_filter: 'content-filter',
  model_context_window_exceeded: 'context-overflow',
};

/**
 * Turns OpenAI-style chat-completion chunks (DeepSeek, OpenAI, vLLM, llama.cpp, Ollama,
 * OpenRouter, xAI, Mistral) into provider-neutral stream events and one final message.
 * Odd chunks (JSON that is not an object) become warnings; a data line that is not JSON throws
 * STREAM_BROKEN, and an `error` payload inside the stream throws its classified ModelError.
 */
export class OpenAIStreamState {
  private readonly builder: MessageBuilder;
  private readonly toolIndex = new Map<number, number>();
  private readonly warnings: string[] = [];
  private started = false;
  private rawFinish: string | undefined;
  private usage: Usage | undefined;
  private refused = false;
  /** True once `data: [DONE]` arrived. */
  done = false;

  constructor(private readonly provider: string) {
    this.builder = new MessageBuilder(`call_${provider.replace(/[^a-zA-Z0-9_-]/g, '_')}`);
  }

  /** Handles one `data:` payload, pushing events into `out`. */
  handle(data: string, out: ModelStreamEvent[]): void {
    // After [DONE] the answer is complete; whatever follows in the same network chunk is not read.
    if (this.done) return;
    if (data === '[DONE]') {
      this.done = true;
      return;
    }
    const chunk = parseEventData(this.provider, data) as Json;
    if (chunk === null || typeof chunk !== 'object') {
      this.warnings.push(`ignored a chunk that is not a JSON object: ${data.slice(0, 200)}`);
      return;
    }
    // `{"error":{…}}` (OpenAI, DeepSeek, OpenRouter, llama.cpp) or vLLM's `{"object":"error",…}`.
    if ((chunk.error !== undefined && chunk.error !== null) || chunk.object === 'error') {
      throw classifyError({ body: data }, { provider: this.provider });
    }
    if (!this.started) {
      this.started = true;
      const start: ModelStreamEvent = { type: 'start' };
      if (typeof chunk.model === 'string' && chunk.model !== '') start.model = chunk.model;
      if (typeof chunk.id === 'string' && chunk.id !== '') start.requestId = chunk.id;
      out.push(start);
    }
    if (chunk.usage !== undefined && chunk.usage !== null)
      this.usage = usageFromOpenAI(chunk.usage);
    const choices = chunk.choices as Json[] | undefined;
    const choice = Array.isArray(choices) ? choices[0] : undefined;
    if (!choice) return;
    const delta = (choice.delta ?? choice.message) as Json | undefined;
    if (delta) this.delta(delta, out);
    if (typeof choice.finish_reason === 'string') this.rawFinish = choice.finish_reason;
  }

  /** True once a finish reason arrived. */
  isComplete(): boolean {
    return this.rawFinish !== undefined;
  }

  /** Records a tolerated problem for the finish event. */
  warn(note: string): void {
    this.warnings.push(note);
  }

  /** Feeds a whole non-streaming `chat.completion` body (the fallback path). */
  handleWhole(body: string, out: ModelStreamEvent[]): void {
    this.handle(body, out);
    this.done = true;
  }

  /** The final `finish` event; throws when the stream ended without a finish reason or `[DONE]`. */
  finish(): ModelStreamEvent {
    if (this.rawFinish === undefined && !this.done) {
      throw modelError(
        this.provider,
        'STREAM_BROKEN',
        `The ${this.provider} stream ended without a finish reason or [DONE]; the answer is incomplete, retry the request.`,
      );
    }
    if (this.rawFinish === 'insufficient_system_resource') {
      throw modelError(
        this.provider,
        'OVERLOADED',
        `${this.provider} cut the generation short for lack of capacity (insufficient_system_resource); retry later.`,
      );
    }
    let finishReason: FinishReason;
    if (this.rawFinish === undefined) {
      finishReason = this.builder.toolCallCount > 0 ? 'tool-calls' : 'other';
      this.warnings.push('the stream ended with [DONE] but without a finish_reason');
    } else {
      const mapped = FINISH_REASONS[this.rawFinish];
      if (mapped === undefined) this.warnings.push(`unknown finish_reason "${this.rawFinish}"`);
      finishReason = this.refused && this.rawFinish === 'stop' ? 'refusal' : (mapped ?? 'other');
    }
    const event: ModelStreamEvent = { type: 'finish', message: this.builder.build(), finishReason };
    if (this.rawFinish !== undefined) event.rawFinishReason = this.rawFinish;
    if (this.usage) event.usage = this.usage;
    if (this.warnings.length > 0) event.warnings = this.warnings;
    return event;
  }

  private delta(delta: Json, out: ModelStreamEvent[]): void {
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string') this.builder.appendText('reasoning', reasoning, out);
    const content = delta.content;
    if (typeof content === 'string') this.builder.appendText('text', content, out);
    else if (Array.isArray(content)) this.contentParts(content as Json[], out);
    if (typeof delta.refusal === 'string' && delta.refusal !== '') {
      this.refused = true;
      this.builder.appendText('text', delta.refusal, out);
    }
    const calls = delta.tool_calls;
    if (Array.isArray(calls)) {
      for (let position = 0; position < calls.length; position++) {
        const call = calls[position] as unknown;
        if (call === null || typeof call !== 'object') {
          this.warnings.push(
            `ignored a tool call fragment that is not an object: ${JSON.stringify(call)}`,
          );
          continue;
        }
        this.toolCall(call as Json, position, out);
      }
    }
  }

  /** Mistral-style content arrays: `{type:'text',text}` and `{type:'thinking',thinking:[{text}]}`. */
  private contentParts(parts: Json[], out: ModelStreamEvent[]): void {
    for (const part of parts) {
      if (part.type === 'text' && typeof part.text === 'string')
        this.builder.appendText('text', part.text, out);
      else if (part.type === 'thinking' && Array.isArray(part.thinking)) {
        for (const inner of part.thinking as Json[]) {
          if (typeof inner.text === 'string') this.builder.appendText('reasoning', inner.text, out);
        }
      }
    }
  }

  private toolCall(call: Json, position: number, out: ModelStreamEvent[]): void {
    const wireIndex = typeof call.index === 'number' ? call.index : position;
    const fn = (call.function ?? {}) as Json;
    let ordinal = this.toolIndex.get(wireIndex);
    if (ordinal === undefined) {
      const id = typeof call.id === 'string' ? call.id : undefined;
      ordinal = this.builder.startToolCall(id, typeof fn.name === 'string' ? fn.name : '', out);
      this.toolIndex.set(wireIndex, ordinal);
    } else if (typeof fn.name === 'string' && fn.name !== '') {
      this.builder.nameToolCall(ordinal, fn.name);
    }
    if (typeof fn.arguments === 'string') this.builder.appendArguments(ordinal, fn.arguments, out);
    else if (fn.arguments !== undefined && fn.arguments !== null) {
      this.builder.appendArguments(ordinal, JSON.stringify(fn.arguments), out);
    }
  }
}
