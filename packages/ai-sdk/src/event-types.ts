// The session-log events the recorder writes. None touches the surface: an AI SDK app keeps its
// own history, and Spine readers that do not know these types keep and skip them.

import type { EventTypeDefinition, JsonObject, JsonValue } from '@spine/protocol';

/** Body of `ai-sdk/tools`: one tool list, stored once per content hash. */
export interface AiSdkToolsBody {
  /** SHA-256 (hex) of the canonical JSON of `tools`. */
  hash: string;
  /** The tools as the model received them (canonical JSON). */
  tools: JsonValue[];
}

/** Body of `ai-sdk/call`: one model call, enough to rebuild its prompt and check its hash. */
export interface AiSdkCallBody {
  /** `generate` (doGenerate) or `stream` (doStream). */
  mode: 'generate' | 'stream';
  /** Provider of the model, e.g. `openai.chat`. */
  provider: string;
  /** The model id. */
  modelId: string;
  /** The prompt starts with the first `keep` messages of the earlier call at `seq`. */
  base?: { seq: number; keep: number };
  /** The prompt's messages after the `base` ones (canonical JSON). */
  messages: JsonValue[];
  /** Call settings: temperature, tool choice, provider options, … (headers redacted). */
  settings: JsonObject;
  /** Hash of the tool list (an earlier `ai-sdk/tools`), null when the call had no tools. */
  toolsHash: string | null;
  /** SHA-256 (hex) chained over the canonical JSON of every message of the prompt. */
  messagesHash: string;
  /** SHA-256 (hex) of the canonical request: mode, provider, model, settings, tools and messages hashes. */
  requestHash: string;
}

/** Body of `ai-sdk/response`: what one model call returned, or how it failed. */
export interface AiSdkResponseBody {
  /** Seq of the `ai-sdk/call` this answers. */
  call: number;
  /** Content parts in order: text, reasoning, tool calls, files, sources (canonical JSON). */
  content?: JsonValue[];
  /** Why the model stopped. */
  finishReason?: JsonValue;
  /** Token usage as the provider reported it. */
  usage?: JsonValue;
  /** Warnings the provider returned for the call's settings. */
  warnings?: JsonValue;
  /** Response id, model id and timestamp. */
  response?: JsonValue;
  /** Provider-specific metadata. */
  providerMetadata?: JsonValue;
  /** Set when the call failed or its stream ended in an error or was cancelled. */
  error?: { name: string; message: string; statusCode?: number };
}

function isObject(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}
const isSeq = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) > 0;
const isHash = (value: unknown): boolean =>
  typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);

function validateTools(body: unknown): string | undefined {
  if (!isObject(body)) return 'body must be an object';
  if (!isHash(body.hash)) return 'body.hash must be a SHA-256 hex string';
  if (!Array.isArray(body.tools)) return 'body.tools must be an array';
  return undefined;
}

function validateCall(body: unknown): string | undefined {
  if (!isObject(body)) return 'body must be an object';
  if (body.mode !== 'generate' && body.mode !== 'stream')
    return 'body.mode must be generate or stream';
  if (typeof body.provider !== 'string' || typeof body.modelId !== 'string')
    return 'body.provider and body.modelId must be strings';
  if (body.base !== undefined) {
    const base = body.base;
    if (!isObject(base) || !isSeq(base.seq) || !Number.isSafeInteger(base.keep))
      return 'body.base must be { seq, keep }';
  }
  if (!Array.isArray(body.messages)) return 'body.messages must be an array';
  if (!isObject(body.settings)) return 'body.settings must be an object';
  if (body.toolsHash !== null && !isHash(body.toolsHash))
    return 'body.toolsHash must be a hash or null';
  if (!isHash(body.messagesHash) || !isHash(body.requestHash))
    return 'body.messagesHash and body.requestHash must be SHA-256 hex strings';
  return undefined;
}

function validateResponse(body: unknown): string | undefined {
  if (!isObject(body)) return 'body must be an object';
  if (!isSeq(body.call)) return 'body.call must be the seq of an ai-sdk/call';
  if (body.content !== undefined && !Array.isArray(body.content))
    return 'body.content must be an array';
  if (body.error !== undefined) {
    const error = body.error;
    if (!isObject(error) || typeof error.message !== 'string' || typeof error.name !== 'string')
      return 'body.error must be { name, message }';
  }
  return undefined;
}

/**
 * The custom event types `spineRecorder` writes: pass them to `Session.create({ eventTypes })` and
 * `Session.open({ eventTypes })` (the recorder also registers them on a session that lacks them).
 */
export const AI_SDK_EVENT_TYPES: readonly EventTypeDefinition[] = [
  { type: 'ai-sdk/tools', surface: false, validate: validateTools },
  { type: 'ai-sdk/call', surface: false, validate: validateCall },
  { type: 'ai-sdk/response', surface: false, validate: validateResponse },
];
