import type { JsonValue, ModelRequest, ToolSpec, Usage } from '@spine/protocol';

// Bodies of the events the agent loop writes. They are plain JSON so the CLI, replay and
// other readers can interpret a log without this package's classes.

/** Why the prefix of a request differs from the previous request's, or what was added. */
export type PrefixChangeCause =
  | 'system-changed'
  | 'tools-changed'
  | 'model-changed'
  | 'compaction-replaced-region'
  | 'earlier-message-changed'
  | 'runtime-context-inserted';

/** Which messages a request carried, as seqs: the first `keep` of request `base`, then `ranges`. */
export interface RecordedSeqs {
  /** Seq of an earlier `request/header` whose message seqs this one starts with. */
  base?: number;
  /** How many of `base`'s seqs are kept. */
  keep?: number;
  /** Inclusive runs of further seqs. */
  ranges: Array<[number, number]>;
}

/** How a request's prefix compares with the previous request of the session. */
export interface PrefixComparison {
  /** Seq of the previous `request/header`, if any. */
  previous?: number;
  /** Leading messages unchanged from the previous request. */
  kept: number;
  /** How many messages the previous request had. */
  of: number;
  /** True when system, tools, model and every earlier message are unchanged (the cache can hit). */
  extends: boolean;
  /** What changed; `runtime-context-inserted` alone does not break the prefix. */
  causes: PrefixChangeCause[];
}

/** Body of `request/header`: everything needed to rebuild one model request from the log. */
export interface RequestHeaderBody {
  /** The turn of the request. */
  turn: number;
  /** The step within the turn. */
  step: number;
  /** The attempt within the step, from 1. */
  attempt: number;
  /** The model id sent. */
  model: string;
  /** The provider name of the model client. */
  provider: string;
  /** Hash of the system prompt, stored once in `prompt/system`. */
  systemHash: string;
  /** Hash of the tool list, stored once in `tools/defined`. */
  toolsHash: string;
  /** Surface generation the messages were derived at. */
  generation: number;
  /** How many messages the request carried. */
  messageCount: number;
  /** The seqs the messages came from. */
  seqs: RecordedSeqs;
  /**
   * One short hash (16 hex digits) per message after the kept prefix: with `hashing: 'chain/1'`
   * the message's chain value (so the first differing one names the first differing message),
   * in legacy headers the hash of the message's canonical JSON alone.
   */
  addedHashes: string[];
  /** `sha256:<hex>` of the messages: the last chain value, or the legacy running hash. */
  messagesHash: string;
  /** `sha256:<hex>` of the request: the last chain value with the canonical params. */
  requestHash: string;
  /**
   * How the hashes were computed. `chain/1`: c_0 = sha256("spine/message-chain/1"),
   * c_i = sha256(c_{i-1} + "\n" + canonical JSON of message i), messagesHash = c_n,
   * requestHash = sha256(c_n + "\n" + canonical JSON of the params). Absent in headers written
   * before the chain: a running SHA-256 over `{"messages":[…],"params":{…}}`. Replay checks both.
   */
  hashing?: 'chain/1';
  /** The output token cap sent, if any. */
  maxOutputTokens?: number;
  /** The reasoning control sent, if any. */
  reasoning?: ModelRequest['reasoning'];
  /** The session id sent with the request. */
  sessionId?: string;
  /** Prefix comparison with the previous request of the session. */
  prefix: PrefixComparison;
  /** The token meter's estimate of the prompt, when a meter is configured. */
  estimatedTokens?: number;
}

/** Body of `request/context`: the dynamic context snapshot a request was built with. */
export interface RequestContextBody {
  /** Seq of the `request/header` it belongs to. */
  request: number;
  /** The runtime contexts of the prompt snapshot. */
  contexts: Record<string, string>;
  /** The prompt variables of the snapshot. */
  variables: Record<string, string>;
}

/** Body of `prompt/system`, stored once per content hash. */
export interface PromptSystemBody {
  /** `sha256:<hex>` of `text`. */
  hash: string;
  /** The system prompt text. */
  text: string;
}

/** Body of `tools/defined`, stored once per content hash. */
export interface ToolsDefinedBody {
  /** `sha256:<hex>` of the canonical JSON of `tools`. */
  hash: string;
  /** The tool specs, in the order sent. */
  tools: ToolSpec[];
}

/** Body of `assistant/attempt`: how one network request ended. */
export interface AttemptBody {
  /** Seq of the attempt's `request/header`. */
  request: number;
  /** The attempt number. */
  attempt: number;
  /** `ok`, a failure, an abort, or `interrupted` (the process stopped during it). */
  outcome: 'ok' | 'error' | 'aborted' | 'interrupted';
  /** The error code of a failed attempt. */
  code?: string;
  /** The error message of a failed attempt. */
  message?: string;
  /** Whether the failure was classified as transient. */
  retryable?: boolean;
  /** HTTP status, when there was one. */
  status?: number;
  /** Provider-reported prompt tokens served from its cache. */
  cacheHitTokens?: number;
  /** Provider-reported prompt tokens not served from its cache. */
  cacheMissTokens?: number;
  /** The attempt's full usage. */
  usage?: Usage;
  /** Seq of the `assistant/message` this attempt produced. */
  messageSeq?: number;
  /**
   * What broke the provider's prompt cache for this request (from its header), set only when
   * the prefix did not extend the previous request's; `cacheMissTokens` is what it cost.
   */
  prefixCauses?: PrefixChangeCause[];
}

/** Body of `llm/retry`: a retry was decided. */
export interface RetryBody {
  /** The attempt that failed. */
  failedAttempt: number;
  /** The attempt that will follow. */
  nextAttempt: number;
  /** The wait before it, in ms. */
  delayMs: number;
  /** Why (the policy's or the compaction's reason). */
  reason: string;
  /** The failure's code. */
  code?: string;
  /** The compaction that made room, on the overflow path. */
  compactionId?: number;
}

/** Body of `llm/retry-started`: the next attempt begins. */
export interface RetryStartedBody {
  /** The attempt now starting. */
  attempt: number;
  /** True when the previous attempt died with the process. */
  afterCrash?: boolean;
}

/** Which inbox queue. */
export type InboxQueue = 'next-turn' | 'next-step';

/** One queued input. */
export interface InboxItem {
  /** A random id, carried into the `user/message` that consumes it. */
  id: string;
  /** The input text. */
  content: string;
}

/** Body of `agent/inbox/spliced`: `queue.splice(start, deleteCount, ...insert)`. */
export interface InboxSplicedBody {
  /** The queue changed. */
  queue: InboxQueue;
  /** Index of the first item removed or inserted. */
  start: number;
  /** Items removed. */
  deleteCount: number;
  /** Items inserted. */
  insert: InboxItem[];
  /** Why: `enqueue`, `consume`, `clear`. */
  reason: string;
}

/** Why a turn ended. */
export type TurnEndReason = 'completed' | 'max-steps' | 'aborted' | 'error' | 'interrupted';

/** The error a turn ended with. */
export interface TurnError {
  /** The stable error code. */
  code: string;
  /** The message, which says what to do. */
  message: string;
}

/** Body of `turn/end`. */
export interface TurnEndBody {
  /** Why the turn ended. */
  reason: TurnEndReason;
  /** Steps run in the turn (by the process that ended it). */
  steps: number;
  /** Tokens used by those steps. */
  usage?: Usage;
  /** The error, for `error` and `aborted`. */
  error?: TurnError;
  /** Tools denied during the turn, in order. */
  deniedTools?: string[];
}

/** Body of `agent/aborted`. */
export interface AbortedBody {
  /** Where the signal caught the turn. */
  phase: 'stream' | 'tools' | 'retry-wait' | 'compaction' | 'pre-step';
  /** The abort reason, as text. */
  reason?: JsonValue;
}
