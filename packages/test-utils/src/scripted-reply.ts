/** Token counts a scripted reply reports instead of the estimated ones (any subset). */
export interface ScriptedUsage {
  promptTokens?: number;
  completionTokens?: number;
  reasoningTokens?: number;
  cacheHitTokens?: number;
}

/** A tool call the scripted model makes; `arguments` is sent verbatim (it may be invalid JSON). */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments: string;
}

/** A normal streamed (or, for `stream: false` requests, whole) completion. */
export interface ScriptedCompletion {
  text?: string;
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  /** Defaults to `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: string;
  usage?: ScriptedUsage;
  /** Characters per content / reasoning / arguments delta (default 16). */
  chunkSize?: number;
  /** Delay before each chunk, in ms (default 0). */
  delayMs?: number;
  /** `: keep-alive` comments sent before the first chunk (spaced by `delayMs`). */
  keepAlives?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** An HTTP error answer (429 with Retry-After, 500, 503, 400 context overflow …). */
export interface ScriptedError {
  error: { status: number; body: string; headers?: Record<string, string> };
}

/** Streams `dropAfterChunks` content chunks of `text`, then destroys the connection. */
export interface ScriptedDrop {
  dropAfterChunks: number;
  text?: string;
}

/** Streams `stallAfterChunks` content chunks of `text`, then sends nothing more (optionally comments). */
export interface ScriptedStall {
  stallAfterChunks: number;
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
