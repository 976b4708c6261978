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

/** Body of `request/header`: everything needed to rebuild one model request from the log. */
export interface RequestHeaderBody {
  turn: number;
  step: number;
  attempt: number;
  model: string;
  provider: string;
  systemHash: string;
  toolsHash: string;
  /** Surface generation the messages were derived at. */
  generation: number;
  messageCount: number;
  seqs: RecordedSeqs;
  /** Short hashes of the canonical form of each message after the kept prefix. */
  addedHashes: string[];
  /** Hash of the messages part of the canonical request. */
  messagesHash: string;
  /** Hash of the canonical request (messages then params). */
  requestHash: string;
  maxOutputTokens?: number;
  reasoning?: ModelRequest['reasoning'];
  sessionId?: string;
  /** Prefix comparison with the previous request of the session. */
  prefix: {
    previous?: number;
    kept: number;
    of: number;
    extends: boolean;
    causes: PrefixChangeCause[];
  };
  /** The token meter's estimate of the prompt, when a meter is configured. */
  estimatedTokens?: number;
}

/** Body of `request/context`: the dynamic context snapshot a request was built with. */
export interface RequestContextBody {
  request: number;
  contexts: Record<string, string>;
  variables: Record<string, string>;
}

/** Body of `prompt/system`, stored once per content hash. */
export interface PromptSystemBody {
  hash: string;
  text: string;
}

/** Body of `tools/defined`, stored once per content hash. */
export interface ToolsDefinedBody {
  hash: string;
  tools: ToolSpec[];
}

/** Body of `assistant/attempt`: how one network request ended. */
export interface AttemptBody {
  request: number;
  attempt: number;
  outcome: 'ok' | 'error' | 'aborted' | 'interrupted';
  code?: string;
  message?: string;
  retryable?: boolean;
  status?: number;
  /** Provider-reported prompt tokens served from its cache, and not. */
  cacheHitTokens?: number;
  cacheMissTokens?: number;
  usage?: Usage;
  /** Seq of the `assistant/message` this attempt produced. */
  messageSeq?: number;
}

/** Body of `llm/retry`: a retry was decided. */
export interface RetryBody {
  failedAttempt: number;
  nextAttempt: number;
  delayMs: number;
  reason: string;
  code?: string;
  compactionId?: number;
}

/** Body of `llm/retry-started`: the next attempt begins. */
export interface RetryStartedBody {
  attempt: number;
  afterCrash?: boolean;
}

/** Which inbox queue. */
export type InboxQueue = 'next-turn' | 'next-step';

/** One queued input. */
export interface InboxItem {
  id: string;
  content: string;
}

/** Body of `agent/inbox/spliced`: `queue.splice(start, deleteCount, ...insert)`. */
export interface InboxSplicedBody {
  queue: InboxQueue;
  start: number;
  deleteCount: number;
  insert: InboxItem[];
  /** Why: `enqueue`, `consume`, `clear`. */
  reason: string;
}

/** Why a turn ended. */
export type TurnEndReason = 'completed' | 'max-steps' | 'aborted' | 'error' | 'interrupted';

/** Body of `turn/end`. */
export interface TurnEndBody {
  reason: TurnEndReason;
  steps: number;
  usage?: Usage;
  error?: { code: string; message: string };
  deniedTools?: string[];
}

/** Body of `agent/aborted`. */
export interface AbortedBody {
  phase: 'stream' | 'tools' | 'retry-wait' | 'compaction' | 'pre-step';
  reason?: JsonValue;
}
