import { SpineError } from '@spine/protocol';
import type { LoopFinding } from './loop-detector.js';
import { describeOverflow, type OverflowDiagnosis } from './overflow.js';

/** Thrown when `run` is called while a turn is already running on the same agent. */
export class AgentBusyError extends SpineError {
  constructor(options: { turn: number }) {
    super({
      code: 'INVALID_CONFIG',
      message: `turn ${options.turn} is still running; await it, abort it, or call agent.enqueue(input) to queue the input`,
    });
  }
}

/** The model reported a context overflow and no compaction engine can shrink the context. */
export class CompactionUnavailableError extends SpineError {
  constructor(options: { contextWindow: number; cause?: unknown }) {
    super({
      code: 'COMPACTION_DISABLED',
      message: `the request exceeded the model's context window (${options.contextWindow} tokens) and no compaction engine is configured; pass createAgent({ compaction }) or start a new session`,
      cause: options.cause,
    });
  }
}

/** Compaction was attempted after a context overflow but did not shrink the context. */
export class CompactionFailedError extends SpineError {
  constructor(options: { status: string; detail?: string; cause?: unknown }) {
    super({
      code: 'COMPACTION_FAILED',
      message: `the request exceeded the context window and compaction ${options.status}${options.detail ? ` (${options.detail})` : ''}; compact manually, switch to a model with a larger window, or start a new session`,
      cause: options.cause,
    });
  }
}

/** A model request failed and the retry policy gave up. */
export class ModelRequestFailedError extends SpineError {
  constructor(options: { attempts: number; reason: string; cause: unknown }) {
    const code = SpineError.isInstance(options.cause) ? options.cause.code : 'INTERNAL';
    const detail = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super({
      code,
      message: `the model request failed after ${options.attempts} attempt(s): ${detail} (${options.reason}); check the provider's status and your configuration, then resume the turn (Agent.resume(), or "spine resume <session>" in the CLI) or send the input again`,
      cause: options.cause,
    });
  }
}

/** The turn was stopped by its AbortSignal. */
export class TurnAbortedError extends SpineError {
  constructor(options: { turn: number; step: number; phase: string }) {
    super({
      code: 'ABORTED',
      message: `turn ${options.turn} was aborted at step ${options.step} (${options.phase}); start a new turn, or resume this one (Agent.resume(), or "spine resume <session>" in the CLI)`,
    });
  }
}

/** A recorded request names a prompt or tool list whose content the log does not hold. */
export class ReplayInputMissingError extends SpineError {
  constructor(options: { requestSeq: number; what: string }) {
    super({
      code: 'REPLAY_MISMATCH',
      message: `request/header #${options.requestSeq} refers to ${options.what}, which is not in the log; the log is incomplete or was edited`,
    });
  }
}

/**
 * The request does not fit the model's context window and compaction cannot make it fit. The
 * message names what does not fit (the system prompt and tools, one message, one tool result,
 * or the history as a whole) with sizes; `diagnosis` holds the figures.
 */
export class ContextOverflowError extends SpineError {
  /** What does not fit, with sizes. */
  readonly diagnosis: OverflowDiagnosis;
  /** Why compaction could not help (e.g. `disabled`, `not-needed`, `failed`). */
  readonly compaction: string;

  constructor(options: { diagnosis: OverflowDiagnosis; compaction: string; cause?: unknown }) {
    super({
      code: 'CONTEXT_OVERFLOW',
      message: `the request does not fit the model's context window: ${describeOverflow(options.diagnosis)}; compaction ${options.compaction}. Lower the output cap, switch to a model with a larger window, compact with a focus, truncate the offending result, or start a new session`,
      cause: options.cause,
    });
    this.diagnosis = options.diagnosis;
    this.compaction = options.compaction;
  }
}

/**
 * A lazily opened session (one that holds only its surface and the events since its snapshot)
 * was handed to the agent loop without the loop's projections registered, so its state cannot
 * be read back exactly.
 */
export class PartialHistoryError extends SpineError {
  constructor(options: { sessionId: string; projection?: string; reader?: string }) {
    const what = options.projection
      ? `has no projection "${options.projection}"; open it with projections: agentLoopProjections (and compactionProjections)`
      : `is read by ${options.reader ?? 'a reader'} that needs every event; open it with history: 'full'`;
    super({
      code: 'INVALID_CONFIG',
      message: `session ${options.sessionId} was opened lazily (it holds only its surface and recent events) and ${what}`,
    });
  }
}

/**
 * The model went on repeating itself after it was told it was in a loop, so the turn ended with
 * reason `stuck`. `finding` is the loop (kind, what repeats, the seqs of the evidence), as the
 * `loop/detected` event before `turn/end` records it.
 */
export class LoopDetectedError extends SpineError {
  /** The loop that ended the turn. */
  readonly finding: LoopFinding;

  constructor(options: { finding: LoopFinding }) {
    const { finding } = options;
    super({
      code: 'LOOP_DETECTED',
      message: `the model is stuck in a loop (${finding.kind}: ${finding.detail}; evidence: seqs ${finding.evidence.join(', ')}); rephrase the task, give the missing information, or raise the thresholds under "loops" in the configuration`,
    });
    this.finding = finding;
  }
}
