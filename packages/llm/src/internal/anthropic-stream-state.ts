import type { FinishReason, ModelStreamEvent } from '@spine/protocol';
import { classifyError } from '../classify-error.js';
import { modelError } from '../errors.js';
import { usageFromAnthropic } from '../usage-map.js';
import { parseEventData } from './event-json.js';
import { MessageBuilder } from './message-builder.js';

type Json = Record<string, unknown>;

const STOP_REASONS: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool-calls',
  pause_turn: 'pause',
  refusal: 'refusal',
  model_context_window_exceeded: 'context-overflow',
};

/** What an open content block is, by its wire index. */
type OpenBlock =
  | { kind: 'text' | 'thinking' }
  | { kind: 'tool'; ordinal: number; initial: string }
  | { kind: 'other' };

/**
 * Turns Anthropic Messages stream events into provider-neutral events. Usage from
 * `message_start` is overwritten field by field by the cumulative `message_delta` totals.
 * Unknown event and block types are ignored (Anthropic's versioning policy); a data line that is
 * not JSON breaks the stream (STREAM_BROKEN).
 */
export class AnthropicStreamState {
  private readonly builder = new MessageBuilder('toolu_spine');
  private readonly blocks = new Map<number, OpenBlock>();
  private readonly warnings: string[] = [];
  private usage: Json = {};
  private stopReason: string | undefined;
  private signature: string | undefined;
  /** True once `message_stop` arrived. */
  done = false;

  constructor(private readonly provider: string) {}

  /**
   * Handles one event's `data` payload; `name` is its `event:` field. A `ping` is skipped unread
   * (as the SDK does); any other data that is not JSON throws STREAM_BROKEN, and after
   * `message_stop` nothing is read.
   */
  handle(data: string, out: ModelStreamEvent[], name?: string): void {
    if (this.done || name === 'ping') return;
    const event = parseEventData(this.provider, data) as Json;
    if (event === null || typeof event !== 'object' || Array.isArray(event)) {
      this.warnings.push(`ignored an event that is not a JSON object: ${data.slice(0, 200)}`);
      return;
    }
    switch (event.type) {
      case 'message_start': {
        const message = (event.message ?? {}) as Json;
        this.usage = { ...((message.usage as Json) ?? {}) };
        const start: ModelStreamEvent = { type: 'start' };
        if (typeof message.model === 'string') start.model = message.model;
        if (typeof message.id === 'string') start.requestId = message.id;
        out.push(start);
        return;
      }
      case 'content_block_start':
        this.blockStart(event.index as number, (event.content_block ?? {}) as Json, out);
        return;
      case 'content_block_delta':
        this.blockDelta(event.index as number, (event.delta ?? {}) as Json, out);
        return;
      case 'content_block_stop':
        this.blockStop(event.index as number);
        return;
      case 'message_delta': {
        const delta = (event.delta ?? {}) as Json;
        if (typeof delta.stop_reason === 'string') this.stopReason = delta.stop_reason;
        for (const [key, value] of Object.entries((event.usage ?? {}) as Json)) {
          if (value !== null && value !== undefined) this.usage[key] = value;
        }
        return;
      }
      case 'message_stop':
        this.done = true;
        return;
      case 'error':
        throw classifyError({ body: data }, { provider: this.provider });
      default:
        return; // ping and future event types
    }
  }

  /** True once a stop reason arrived. */
  isComplete(): boolean {
    return this.stopReason !== undefined;
  }

  /** Records a tolerated problem for the finish event. */
  warn(note: string): void {
    this.warnings.push(note);
  }

  /** Feeds a whole non-streaming message body. */
  handleWhole(body: string, out: ModelStreamEvent[]): void {
    const message = JSON.parse(body) as Json;
    if (message.type === 'error') throw classifyError({ body }, { provider: this.provider });
    this.handle(
      JSON.stringify({ type: 'message_start', message: { ...message, content: [] } }),
      out,
    );
    const content = Array.isArray(message.content) ? (message.content as Json[]) : [];
    content.forEach((block, index) => {
      // blockStart already takes a whole block's text and thinking; only the signature is left.
      this.blockStart(index, block, out);
      if (block.type === 'thinking') {
        this.blockDelta(index, { type: 'signature_delta', signature: block.signature }, out);
      }
      this.blockStop(index);
    });
    this.stopReason = typeof message.stop_reason === 'string' ? message.stop_reason : undefined;
    this.done = true;
  }

  /** The final `finish` event. */
  finish(): ModelStreamEvent {
    if (!this.done && this.stopReason === undefined) {
      throw modelError(
        this.provider,
        'STREAM_BROKEN',
        `The ${this.provider} stream ended before message_stop; the answer is incomplete, retry the request.`,
      );
    }
    const mapped = this.stopReason === undefined ? undefined : STOP_REASONS[this.stopReason];
    if (this.stopReason !== undefined && mapped === undefined) {
      this.warnings.push(`unknown stop_reason "${this.stopReason}"`);
    }
    const event: ModelStreamEvent = {
      type: 'finish',
      message: this.builder.build(),
      finishReason: mapped ?? 'other',
      usage: usageFromAnthropic(this.usage),
    };
    if (this.stopReason !== undefined) event.rawFinishReason = this.stopReason;
    if (this.warnings.length > 0) event.warnings = this.warnings;
    return event;
  }

  private blockStart(index: number, block: Json, out: ModelStreamEvent[]): void {
    switch (block.type) {
      case 'text':
        this.blocks.set(index, { kind: 'text' });
        if (typeof block.text === 'string') this.builder.appendText('text', block.text, out);
        return;
      case 'thinking':
        this.blocks.set(index, { kind: 'thinking' });
        this.signature = undefined;
        if (typeof block.thinking === 'string')
          this.builder.appendText('reasoning', block.thinking, out);
        return;
      case 'redacted_thinking':
        this.blocks.set(index, { kind: 'other' });
        this.builder.closeReasoning({ redactedData: String(block.data ?? '') });
        return;
      case 'tool_use': {
        const ordinal = this.builder.startToolCall(
          typeof block.id === 'string' ? block.id : undefined,
          String(block.name ?? ''),
          out,
        );
        const input = block.input;
        const initial =
          typeof input === 'object' && input !== null && Object.keys(input).length > 0
            ? JSON.stringify(input)
            : '';
        this.blocks.set(index, { kind: 'tool', ordinal, initial });
        return;
      }
      default:
        this.blocks.set(index, { kind: 'other' });
    }
  }

  private blockDelta(index: number, delta: Json, out: ModelStreamEvent[]): void {
    const block = this.blocks.get(index);
    if (!block) return;
    if (delta.type === 'text_delta' && typeof delta.text === 'string')
      this.builder.appendText('text', delta.text, out);
    else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
      this.builder.appendText('reasoning', delta.thinking, out);
    } else if (delta.type === 'signature_delta' && typeof delta.signature === 'string') {
      this.signature = (this.signature ?? '') + delta.signature;
    } else if (
      delta.type === 'input_json_delta' &&
      block.kind === 'tool' &&
      typeof delta.partial_json === 'string'
    ) {
      this.builder.appendArguments(block.ordinal, delta.partial_json, out);
    }
  }

  private blockStop(index: number): void {
    const block = this.blocks.get(index);
    if (block?.kind === 'thinking') {
      this.builder.closeReasoning(
        this.signature === undefined ? {} : { signature: this.signature },
      );
      this.signature = undefined;
    } else if (block?.kind === 'tool' && this.builder.argumentsOf(block.ordinal) === '') {
      // No input_json_delta at all (or only empty ones): the input is the start block's, or `{}`.
      this.builder.setArguments(block.ordinal, block.initial === '' ? '{}' : block.initial);
    }
  }
}
