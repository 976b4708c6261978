import type {
  CompactionEngine,
  CompactionOutcome,
  ImagePart,
  InboxItem,
  InboxQueue,
  ModelClient,
  ModelRequest,
  RetryPolicy,
  SessionLog,
  SpineError,
  TokenMeter,
  ToolCallPart,
  ToolResultBody,
  ToolRunOptions,
  ToolScheduler,
  Usage,
} from '@spine/protocol';
import type { LoopThresholds } from './loop-detector.js';
import type { SystemPrompt } from './system-prompt.js';

/** Options of {@link createAgent}. */
export interface AgentOptions {
  /** The session every event goes to and every request is derived from. */
  session: SessionLog;
  /** The model client. */
  model: ModelClient;
  /** The model id sent to the provider (configuration, never a constant). */
  modelId: string;
  /** The model's context window in tokens, for compaction thresholds. Default 128,000. */
  contextWindow?: number;
  /** Cap on output tokens per request. */
  maxOutputTokens?: number;
  /** Runs tool calls. */
  tools: ToolScheduler;
  /** The prompt contributions; default: an empty prompt. */
  systemPrompt?: SystemPrompt;
  /** Compacts on pressure (pre-step) and on context overflow. Without it an overflow fails the turn. */
  compaction?: CompactionEngine;
  /** Decides retries of failed attempts; default: retry transient model errors up to 4 attempts. */
  retryPolicy?: RetryPolicy;
  /** Estimates prompt tokens (recorded per request) and is calibrated from provider usage. */
  meter?: TokenMeter;
  /** Steps per turn before the turn ends with `max-steps`. Default 100. */
  maxSteps?: number;
  /**
   * Loop detection: thresholds (missing ones take `DEFAULT_LOOP_THRESHOLDS`), or `false` / absent
   * for none. The first loop of a turn is recorded (`loop/detected`) and the model told; a loop
   * that goes on ends the turn with reason `stuck`.
   */
  loops?: Partial<LoopThresholds> | false;
  /** Answers tool approval questions. */
  approve?: ToolRunOptions['approve'];
  /** Reasoning / thinking control passed to the model. */
  reasoning?: ModelRequest['reasoning'];
  /** The agent name whose tool visibility applies. */
  agentName?: string;
  /**
   * Runs after a step's answer is committed and before its tool calls run (only for steps with
   * tool calls): the seam for work that must precede any effect, such as a workspace checkpoint
   * (`workspace/checkpoint`) before calls that may change files. Events it appends land between
   * the `assistant/message` and the first `tool/started`. A rejection fails the step.
   */
  beforeTools?: (input: BeforeToolsInput) => Promise<void>;
  /**
   * Runs after a turn's last step and before its `turn/end` (also when the turn is aborted or a
   * step failed): the seam for a workspace checkpoint of what the turn left. Events it appends
   * belong to the turn. A rejection is ignored (the hook reports its own failures).
   */
  beforeTurnEnd?: (input: { session: SessionLog; turn: number; step: number }) => Promise<void>;
  /**
   * Checked before each model request: a limit it reports ends the turn with reason `budget`
   * (recorded as `budget/exceeded`) instead of sending the request.
   */
  budget?: import('./budget.js').BudgetCheck;
}

/** What {@link AgentOptions.beforeTools} is told. */
export interface BeforeToolsInput {
  /** The session the step writes to. */
  session: SessionLog;
  /** The step's turn. */
  turn: number;
  /** The step. */
  step: number;
  /** The calls about to run, in the order the model proposed them. */
  calls: readonly ToolCallPart[];
  /** The turn's abort signal. */
  signal?: AbortSignal;
}

/**
 * Why a turn ended, as the CLI maps it to exit codes. `budget`: a cost or token budget was
 * reached before a request (`budget` names it). `stuck`: the loop detector found the model
 * repeating itself and the loop went on after the model was told (the error is a
 * `LoopDetectedError` with the evidence).
 */
export type TurnReason = 'completed' | 'max-steps' | 'aborted' | 'error' | 'budget' | 'stuck';

/** What one turn came to. */
export interface TurnResult {
  /** Why it ended. */
  reason: TurnReason;
  /** The turn number. */
  turn: number;
  /** The error that ended it, for `error`, `aborted` and `stuck`. */
  error?: SpineError;
  /** The limit that ended it, for `budget` (also recorded as `budget/exceeded`). */
  budget?: import('@spine/protocol').BudgetExceededBody;
  /** Steps run in this turn (by this process). */
  steps: number;
  /** Tokens used by this turn's requests. */
  usage: Usage;
  /** Text of the last assistant message. */
  text: string;
  /** Tools that were denied during the turn, in order. */
  deniedTools: string[];
}

/** Options of {@link Agent.run} and {@link Agent.resume}. */
export interface RunOptions {
  /** One signal for the turn, its requests and its tools. */
  signal?: AbortSignal;
  /**
   * Images sent with the input, after its text: parts whose bytes are already in the session's
   * blob store (`session.blobs.put`).
   */
  images?: ImagePart[];
}

/** Position of a live event in the session. */
export interface StepPosition {
  /** The turn number. */
  turn: number;
  /** The step within the turn. */
  step: number;
}

/** Live events for UIs (deltas are not logged one by one; the final message is). */
export interface AgentEvents {
  /** A piece of the model's text as it streams. */
  'text-delta': (event: StepPosition & { text: string }) => void;
  /** A piece of the model's reasoning as it streams. */
  'reasoning-delta': (event: StepPosition & { text: string }) => void;
  /** A tool call of the final assistant message, before it runs. */
  'tool-call': (event: StepPosition & { call: ToolCallPart }) => void;
  /** Progress a running tool reported (not logged). */
  'tool-progress': (
    event: StepPosition & { toolCallId: string; message?: string; data?: unknown },
  ) => void;
  /** A tool result, as committed to the session. */
  'tool-result': (event: StepPosition & { result: ToolResultBody }) => void;
  /** A step begins (or resumes, with the attempt it resumes at). */
  'step-start': (event: StepPosition & { attempt: number }) => void;
  /** A step ended after its tools ran. */
  'step-end': (event: StepPosition & { finishReason: string; toolCalls: number }) => void;
  /** A turn ended; the same result `run` resolves with. */
  'turn-end': (result: TurnResult) => void;
  /** A failed attempt will be retried; discard the partial text it streamed. */
  retry: (
    event: StepPosition & {
      failedAttempt: number;
      nextAttempt: number;
      delayMs: number;
      reason: string;
    },
  ) => void;
  /** A compaction ran: it replaced a region, failed (surface unchanged) or tripped the breaker. */
  compaction: (event: StepPosition & { outcome: CompactionOutcome }) => void;
  /** An input was queued. */
  queued: (event: { queue: InboxQueue; item: InboxItem; size: number }) => void;
}
