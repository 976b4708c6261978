// Folds a LanguageModelV3 stream into the content a doGenerate call would have returned, so a
// streamed call is recorded in the same shape as a generated one.

import type { JsonValue } from '@spine/protocol';
import type { AiSdkResponseBody } from '../event-types.js';
import { toJson } from './canonical.js';

interface StreamPart {
  type: string;
  id?: string;
  delta?: string;
  [key: string]: unknown;
}

/** The error member of a response body, from anything thrown or streamed. */
export function errorOf(error: unknown): NonNullable<AiSdkResponseBody['error']> {
  if (error instanceof Error) {
    const status = (error as { statusCode?: unknown }).statusCode;
    return {
      name: error.name,
      message: error.message,
      ...(typeof status === 'number' ? { statusCode: status } : {}),
    };
  }
  return {
    name: 'Error',
    message: typeof error === 'string' ? error : JSON.stringify(toJson(error) ?? null),
  };
}

/** Collects stream parts; `body(call)` is the `ai-sdk/response` body once the stream is over. */
export class StreamCollector {
  private readonly content: JsonValue[] = [];
  /** Open text and reasoning blocks by id: their index in `content`. */
  private readonly open = new Map<
    string,
    { index: number; kind: 'text' | 'reasoning'; text: string }
  >();
  private finish: StreamPart | undefined;
  private metadata: StreamPart | undefined;
  private warnings: JsonValue | undefined;
  error: AiSdkResponseBody['error'];

  /** Takes one part of the stream. */
  add(part: StreamPart): void {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        const kind = part.type === 'text-start' ? 'text' : 'reasoning';
        this.open.set(`${kind}:${part.id}`, { index: this.content.length, kind, text: '' });
        this.content.push({ type: kind, text: '' });
        return;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const kind = part.type === 'text-delta' ? 'text' : 'reasoning';
        const block = this.open.get(`${kind}:${part.id}`);
        if (!block) {
          this.content.push({ type: kind, text: part.delta ?? '' });
          return;
        }
        block.text += part.delta ?? '';
        this.content[block.index] = { type: kind, text: block.text };
        return;
      }
      case 'text-end':
      case 'reasoning-end':
        this.open.delete(`${part.type === 'text-end' ? 'text' : 'reasoning'}:${part.id}`);
        return;
      case 'tool-input-start':
      case 'tool-input-delta':
      case 'tool-input-end':
      case 'raw':
        return; // the complete tool-call part follows; raw chunks are the provider's wire
      case 'stream-start':
        this.warnings = toJson(part.warnings);
        return;
      case 'response-metadata':
        this.metadata = part;
        return;
      case 'finish':
        this.finish = part;
        return;
      case 'error':
        this.error = errorOf(part.error);
        return;
      default:
        this.content.push(toJson(part) ?? null);
    }
  }

  /** The response body of the call at seq `call`. */
  body(call: number): AiSdkResponseBody {
    const body: AiSdkResponseBody = { call, content: this.content };
    const finish = this.finish;
    if (finish) {
      const finishReason = toJson(finish.finishReason);
      const usage = toJson(finish.usage);
      const providerMetadata = toJson(finish.providerMetadata);
      if (finishReason !== undefined) body.finishReason = finishReason;
      if (usage !== undefined) body.usage = usage;
      if (providerMetadata !== undefined) body.providerMetadata = providerMetadata;
    }
    if (this.warnings !== undefined) body.warnings = this.warnings;
    if (this.metadata) {
      const { type: _type, ...rest } = this.metadata;
      const response = toJson(rest);
      if (response !== undefined) body.response = response;
    }
    if (this.error) body.error = this.error;
    else if (!finish)
      body.error = { name: 'StreamIncomplete', message: 'the stream ended without a finish part' };
    return body;
  }
}
