import type { JsonObject, JsonValue, SessionLog } from '@spine/protocol';
import { AiSdkOptionsError, RecordingFailedError } from './errors.js';
import {
  AI_SDK_EVENT_TYPES,
  type AiSdkCallBody,
  type AiSdkResponseBody,
  type AiSdkToolsBody,
} from './event-types.js';
import {
  canonicalJson,
  chainMessage,
  EMPTY_CHAIN,
  requestHashOf,
  sameAsJson,
  sha256,
  toJson,
} from './internal/canonical.js';
import {
  convertMessage,
  type MessageTape,
  matchesTape,
  tapesUsable,
} from './internal/message-tape.js';
import { errorOf, StreamCollector } from './internal/stream-collector.js';

/** Options of {@link spineRecorder}. */
export interface SpineRecorderOptions {
  /** The session log every call is appended to (a `Session` of `@spine/session-log`). */
  session: SessionLog;
  /**
   * Header names whose values are replaced by `[redacted]` in the recorded settings (lower case).
   * Default: `authorization`, `proxy-authorization`, `cookie`, `x-api-key`, `api-key`.
   */
  redactHeaders?: readonly string[];
}

/** Headers whose values never enter the log by default. */
export const DEFAULT_REDACTED_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-api-key',
  'api-key',
];

/** What the recorder reads of a model call's options (the AI SDK's `LanguageModelV3CallOptions`). */
export interface RecordedCallOptions {
  /** The prompt: system, user, assistant and tool messages. */
  readonly prompt: readonly unknown[];
  /** The function and provider tools offered to the model. */
  readonly tools?: readonly unknown[] | undefined;
}

/** What the recorder reads of the model: its provider and id. */
export interface RecordedModel {
  /** Provider name, e.g. `openai.chat`. */
  readonly provider: string;
  /** The model id. */
  readonly modelId: string;
}

/**
 * The middleware {@link spineRecorder} returns: a language-model middleware of the AI SDK
 * (`LanguageModelMiddleware`, specification `v3`, which `ai` 6 and 7 accept), typed without
 * importing `ai` so that this package's types load whichever major is installed.
 */
export interface SpineRecorderMiddleware {
  /** The AI SDK middleware specification this implements. */
  readonly specificationVersion: 'v3';
  /** Records a `doGenerate` call and its result (or error). */
  wrapGenerate<Result>(options: {
    doGenerate: () => PromiseLike<Result>;
    params: RecordedCallOptions;
    model: RecordedModel;
  }): Promise<Result>;
  /** Records a `doStream` call; its response is recorded when the stream ends. */
  wrapStream<Result extends { stream: ReadableStream<unknown> }>(options: {
    doStream: () => PromiseLike<Result>;
    params: RecordedCallOptions;
    model: RecordedModel;
  }): Promise<Result>;
}

type CallOptions = RecordedCallOptions;
type Model = RecordedModel;

interface GenerateResultFields {
  content?: unknown;
  finishReason?: unknown;
  usage?: unknown;
  warnings?: unknown;
  providerMetadata?: unknown;
  response?: { id?: unknown; modelId?: unknown; timestamp?: unknown };
}

/**
 * The previous call's prompt, owned by the recorder: its converted messages, their chain values,
 * and the tape of each message's conversion (none for a message a tape cannot hold).
 */
interface PromptState {
  seq: number;
  messages: JsonValue[];
  chain: string[];
  tapes: (MessageTape | undefined)[];
}

interface SessionWithTypes {
  registerEventType?: (definition: (typeof AI_SDK_EVENT_TYPES)[number]) => void;
}

function registerTypes(session: SessionLog): void {
  const register = (session as SessionLog & SessionWithTypes).registerEventType;
  if (typeof register !== 'function') return;
  for (const definition of AI_SDK_EVENT_TYPES) {
    try {
      register.call(session, definition);
    } catch (error) {
      throw new AiSdkOptionsError({
        reason: `the session cannot record ${definition.type} (${(error as Error).message}); create or open it with eventTypes: AI_SDK_EVENT_TYPES`,
      });
    }
  }
}

function settingsOf(params: CallOptions, redact: ReadonlySet<string>): JsonObject {
  const settings: JsonObject = {};
  for (const [key, value] of Object.entries(params)) {
    if (key === 'prompt' || key === 'tools' || key === 'abortSignal' || value === undefined)
      continue;
    if (key === 'headers' && typeof value === 'object' && value !== null) {
      const headers: JsonObject = {};
      for (const [name, header] of Object.entries(value as Record<string, unknown>)) {
        if (header === undefined) continue;
        headers[name] = redact.has(name.toLowerCase()) ? '[redacted]' : String(header);
      }
      settings.headers = headers;
      continue;
    }
    const converted = toJson(value);
    if (converted !== undefined) settings[key] = converted;
  }
  return settings;
}

/**
 * Creates a language-model middleware that records every call of an AI SDK app into a Spine
 * session log: `ai-sdk/call` (the prompt's new messages, settings, tool-list hash and the canonical
 * request hash) before the model is called, and `ai-sdk/response` (content, finish reason, usage,
 * or the error) when it answers, for `doGenerate` and `doStream` alike. Recording is incremental:
 * a call stores only the messages after the prefix it shares with the previous call, and tool
 * lists once per hash. {@link verifyRecording} rebuilds every prompt and checks its hash.
 *
 * Contract: a call that cannot be recorded is not made (`RecordingFailedError`); model errors are
 * recorded, then rethrown unchanged. Flush or close the session to make the log durable.
 *
 * @throws an {@link AiSdkOptionsError} when the session has a conflicting definition of an
 *   `ai-sdk/*` type.
 * @example
 * ```ts
 * const session = await Session.create({ store: createJsonlStore({ dir: '.spine/sessions' }) });
 * const model = wrapLanguageModel({ model: provider('some-model'), middleware: spineRecorder({ session }) });
 * ```
 */
export function spineRecorder(options: SpineRecorderOptions): SpineRecorderMiddleware {
  const session = options.session;
  if (typeof session?.append !== 'function')
    throw new AiSdkOptionsError({
      reason: 'spineRecorder needs { session } (a Session of @spine/session-log)',
    });
  registerTypes(session);
  const redact = new Set(
    (options.redactHeaders ?? DEFAULT_REDACTED_HEADERS).map((h) => h.toLowerCase()),
  );
  const recordedTools = new Set<string>();
  let previous: PromptState | undefined;

  const append = (type: string, body: unknown): number => {
    try {
      return session.append(type, body).seq;
    } catch (error) {
      throw new RecordingFailedError({ cause: error });
    }
  };

  const toolsHashOf = (params: CallOptions): string | null => {
    if (!params.tools || params.tools.length === 0) return null;
    const tools = toJson(params.tools) as JsonValue[];
    const hash = sha256(canonicalJson(tools));
    if (!recordedTools.has(hash)) {
      append('ai-sdk/tools', { hash, tools } satisfies AiSdkToolsBody);
      recordedTools.add(hash);
    }
    return hash;
  };

  const recordCall = (mode: 'generate' | 'stream', params: CallOptions, model: Model): number => {
    const prompt = params.prompt as readonly unknown[];
    const state = previous;
    let keep = 0;
    if (state) {
      const limit = Math.min(prompt.length, state.messages.length);
      const tapes = tapesUsable() ? state.tapes : [];
      while (keep < limit) {
        const tape = tapes[keep];
        if (tape === undefined || !matchesTape(prompt[keep], tape)) {
          if (!sameAsJson(prompt[keep], state.messages[keep])) break;
        }
        keep++;
      }
    }
    const messages: JsonValue[] = [];
    const kept = state && keep > 0 ? state : undefined;
    const all = kept ? kept.messages : [];
    const chain = kept ? kept.chain : [];
    const tapes = kept ? kept.tapes : [];
    all.length = keep;
    chain.length = keep;
    tapes.length = keep;
    let hash = keep > 0 ? (chain[keep - 1] as string) : EMPTY_CHAIN;
    for (let i = keep; i < prompt.length; i++) {
      const { json: message, tape } = convertMessage(prompt[i]);
      hash = chainMessage(hash, message);
      messages.push(message);
      all.push(message);
      chain.push(hash);
      tapes.push(tape);
    }
    const settings = settingsOf(params, redact);
    const toolsHash = toolsHashOf(params);
    const provider = model.provider;
    const modelId = model.modelId;
    const requestHash = requestHashOf({
      mode,
      provider,
      modelId,
      settings,
      toolsHash,
      messagesHash: hash,
    });
    const body: AiSdkCallBody = {
      mode,
      provider,
      modelId,
      ...(kept ? { base: { seq: kept.seq, keep } } : {}),
      messages,
      settings,
      toolsHash,
      messagesHash: hash,
      requestHash,
    };
    let seq: number;
    try {
      seq = append('ai-sdk/call', body);
    } catch (error) {
      previous = undefined; // the state no longer matches a recorded call
      throw error;
    }
    previous = { seq, messages: all, chain, tapes };
    return seq;
  };

  const respond = (body: AiSdkResponseBody): void => {
    append('ai-sdk/response', body);
  };

  return {
    specificationVersion: 'v3',
    async wrapGenerate<Result>({
      doGenerate,
      params,
      model,
    }: {
      doGenerate: () => PromiseLike<Result>;
      params: RecordedCallOptions;
      model: RecordedModel;
    }): Promise<Result> {
      const call = recordCall('generate', params, model);
      let generated: Result;
      try {
        generated = await doGenerate();
      } catch (error) {
        respond({ call, error: errorOf(error) });
        throw error;
      }
      const result = generated as GenerateResultFields;
      const response: AiSdkResponseBody = { call, content: toJson(result.content) as JsonValue[] };
      const fields = {
        finishReason: toJson(result.finishReason),
        usage: toJson(result.usage),
        warnings: toJson(result.warnings),
        providerMetadata: toJson(result.providerMetadata),
        response: toJson(
          result.response
            ? {
                id: result.response.id,
                modelId: result.response.modelId,
                timestamp: result.response.timestamp,
              }
            : undefined,
        ),
      };
      for (const [key, value] of Object.entries(fields))
        if (value !== undefined) (response as unknown as JsonObject)[key] = value;
      respond(response);
      return generated;
    },
    async wrapStream<Result extends { stream: ReadableStream<unknown> }>({
      doStream,
      params,
      model,
    }: {
      doStream: () => PromiseLike<Result>;
      params: RecordedCallOptions;
      model: RecordedModel;
    }): Promise<Result> {
      const call = recordCall('stream', params, model);
      let result: Result;
      try {
        result = await doStream();
      } catch (error) {
        respond({ call, error: errorOf(error) });
        throw error;
      }
      const collector = new StreamCollector();
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        respond(collector.body(call));
      };
      type Part = unknown;
      type PartTransformer = NonNullable<
        ConstructorParameters<typeof TransformStream<Part, Part>>[0]
      >;
      const transformer: PartTransformer & { cancel?: (reason: unknown) => void } = {
        transform(part, controller) {
          collector.add(part as unknown as Parameters<StreamCollector['add']>[0]);
          controller.enqueue(part);
        },
        flush() {
          finish();
        },
        // Called when the consumer cancels (Node ≥ 21; older versions never call it).
        cancel(reason: unknown) {
          collector.error ??= {
            name: 'StreamCancelled',
            message: `the consumer cancelled the stream: ${String(reason)}`,
          };
          finish();
        },
      };
      const stream = result.stream.pipeThrough(new TransformStream<Part, Part>(transformer));
      return { ...result, stream };
    },
  };
}
