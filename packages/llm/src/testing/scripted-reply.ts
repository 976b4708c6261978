/** Token counts a scripted reply reports instead of the estimated ones (any subset). */
export interface ScriptedUsage {
  /** Prompt tokens (default: request characters / 4). */
  promptTokens?: number;
  /** Output tokens, reasoning included (default: output characters / 4). */
  completionTokens?: number;
  /** Reasoning sub-count, reported as `completion_tokens_details.reasoning_tokens`. */
  reasoningTokens?: number;
  /** Cached prompt tokens (default: the prefix-cache emulation, or 0). */
  cacheHitTokens?: number;
}

/** A tool call the scripted model makes; `arguments` is sent verbatim (it may be invalid JSON). */
export interface ScriptedToolCall {
  /** Call id (default `call_NN_<reply id>`). */
  id?: string;
  /** Tool name. */
  name: string;
  /** Raw arguments text, streamed in `chunkSize` pieces. */
  arguments: string;
}

/** A normal streamed (or, for `stream: false` requests, whole) completion. */
export interface ScriptedCompletion {
  /** Answer text. */
  text?: string;
  /** Reasoning (`reasoning_content`, or an Anthropic thinking block with a signature). */
  reasoning?: string;
  /** Tool calls, in order (parallel calls get indexes 0, 1, …). */
  toolCalls?: ScriptedToolCall[];
  /** Defaults to `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: string;
  /** Overrides of the reported token counts. */
  usage?: ScriptedUsage;
  /** Characters per content / reasoning / arguments delta (default 16). */
  chunkSize?: number;
  /** Delay before each chunk, in ms (default 0). */
  delayMs?: number;
  /** `: keep-alive` comments sent before the first chunk (spaced by `delayMs`). */
  keepAlives?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /**
   * Sends a `data:` line holding truncated JSON (a chunk cut in two) just before the SSE frame
   * at this position, then the rest of the stream as usual. Positions past the end put it
   * before the terminal frame (`[DONE]` or `message_stop`). A client must fail the stream.
   */
  malformedAt?: number;
}

/** An HTTP error answer (429 with Retry-After, 500, 503, 400 context overflow …). */
export interface ScriptedError {
  /** Status, raw body text and extra headers (e.g. `retry-after`) of the error response. */
  error: { status: number; body: string; headers?: Record<string, string> };
}

/** Streams `dropAfterChunks` content chunks of `text`, then destroys the connection. */
export interface ScriptedDrop {
  /** Chunks (frames) sent before the socket is destroyed. */
  dropAfterChunks: number;
  /** Text the partial answer is cut from. */
  text?: string;
}

/** Streams `stallAfterChunks` content chunks of `text`, then sends nothing more (optionally comments). */
export interface ScriptedStall {
  /** Chunks (frames) sent before the stream goes silent. */
  stallAfterChunks: number;
  /** Text the partial answer is cut from. */
  text?: string;
  /** While stalled, send a `: keep-alive` comment this often (comments must not count as data). */
  keepAliveEveryMs?: number;
}

/** One scripted answer of {@link createScriptedModelServer}. */
export type ScriptedReply = ScriptedCompletion | ScriptedError | ScriptedDrop | ScriptedStall;

/** A chat-completions request as the scripted server received it. */
export interface ReceivedRequest {
  /** The parsed JSON body (`undefined` when it was not JSON). */
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary wire bodies.
  body: any;
  /** The body bytes as UTF-8 text, exactly as received. */
  raw: string;
  /** Request headers (lower-case names). */
  headers: Record<string, string>;
  /** `Date.now()` when the request arrived. */
  at: number;
  /** The request path, e.g. `/chat/completions`. */
  path: string;
}
