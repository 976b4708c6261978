const BRAND = Symbol.for('spine.error');

/**
 * The codes a model request failure can carry, the one list every package reads (a
 * {@link ModelError} carries one of them). `ABORTED` is shared with the rest of Spine.
 */
export const MODEL_ERROR_CODES = [
  'RATE_LIMITED',
  'OVERLOADED',
  'SERVER_ERROR',
  'NETWORK_ERROR',
  'STREAM_BROKEN',
  'STREAM_IDLE',
  'REQUEST_TIMEOUT',
  'AUTH_FAILED',
  'INSUFFICIENT_BALANCE',
  'INVALID_REQUEST',
  'CONTEXT_OVERFLOW',
  'MODEL_NOT_FOUND',
  'ABORTED',
] as const;

/** Codes a {@link ModelError} can carry: one of {@link MODEL_ERROR_CODES}. */
export type ModelErrorCode = (typeof MODEL_ERROR_CODES)[number];

const MODEL_CODES: ReadonlySet<string> = new Set(MODEL_ERROR_CODES);

/** True when `code` is one of {@link MODEL_ERROR_CODES}. */
export function isModelErrorCode(code: string): code is ModelErrorCode {
  return MODEL_CODES.has(code);
}

/**
 * Stable error codes shared by every Spine package. New codes may be added in a minor
 * release; an existing code never changes meaning.
 */
export type SpineErrorCode =
  // session log
  | 'INVALID_EVENT'
  | 'UNKNOWN_EVENT_TYPE'
  | 'ILLEGAL_SURFACE_OP'
  | 'SESSION_LOCKED'
  | 'SESSION_NOT_FOUND'
  | 'SESSION_EXISTS'
  | 'SESSION_CORRUPT'
  | 'SESSION_CLOSED'
  | 'UNSUPPORTED_FORMAT'
  | 'STORE_UNAVAILABLE'
  | 'INVALID_RANGE'
  | 'BLOB_MISSING'
  // images
  | 'IMAGE_REFUSED'
  | 'IMAGES_UNSUPPORTED'
  // models: the one list, MODEL_ERROR_CODES
  | ModelErrorCode
  // tools
  | 'TOOL_NOT_FOUND'
  | 'INVALID_TOOL_ARGUMENTS'
  | 'TOOL_DENIED'
  | 'TOOL_TIMEOUT'
  | 'TOOL_FAILED'
  | 'PATH_REFUSED'
  | 'STALE_FILE'
  | 'SANDBOX_UNAVAILABLE'
  // background jobs
  | 'JOB_LIMIT'
  | 'JOB_NOT_FOUND'
  // workspace checkpoints
  | 'CHECKPOINT_NOT_FOUND'
  | 'CHECKPOINT_FAILED'
  | 'REWIND_CONFLICT'
  // web, lsp, compaction, config
  | 'URL_REFUSED'
  | 'FETCH_FAILED'
  | 'PROVIDER_UNAVAILABLE'
  | 'PROVIDER_AMBIGUOUS'
  | 'LSP_UNAVAILABLE'
  | 'LSP_FAILED'
  | 'COMPACTION_FAILED'
  | 'COMPACTION_DISABLED'
  | 'REPLAY_MISMATCH'
  | 'LOOP_DETECTED'
  | 'PROMPT_BLOCKED'
  | 'INVALID_CONFIG'
  | 'ABORTED'
  | 'UNSUPPORTED_SPECIFICATION'
  | 'INTERNAL';

/** Constructor options of {@link SpineError}. */
export interface SpineErrorOptions {
  /** The stable code. */
  code: SpineErrorCode;
  /** What happened and what to do about it. */
  message: string;
  /** The underlying error, if any. */
  cause?: unknown;
}

/**
 * Base class of every error a Spine package throws. Carries a stable `code` and a brand so
 * {@link SpineError.isInstance} works across duplicate installs of this package.
 *
 * @example
 * ```ts
 * try { session.append('bogus/type', {}); }
 * catch (error) { if (SpineError.isInstance(error)) console.log(error.code); }
 * ```
 */
export class SpineError extends Error {
  /** The stable code, for programs. */
  readonly code: SpineErrorCode;
  /** Brand checked by {@link SpineError.isInstance}. */
  readonly [BRAND] = true;

  constructor(options: SpineErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.name = new.target.name;
  }

  /** True when `value` is a SpineError from any copy of this package. */
  static isInstance(value: unknown): value is SpineError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[BRAND] === true
    );
  }
}

/** Thrown when an interface reports a `specificationVersion` this consumer does not know. */
export class UnsupportedSpecificationError extends SpineError {
  constructor(options: { interfaceName: string; version: unknown }) {
    super({
      code: 'UNSUPPORTED_SPECIFICATION',
      message: `${options.interfaceName} has specificationVersion ${String(options.version)}, but this consumer supports only 1; upgrade the consumer or use a matching implementation`,
    });
  }
}

/**
 * Throws {@link UnsupportedSpecificationError} unless `implementation.specificationVersion` is 1.
 *
 * @throws an {@link UnsupportedSpecificationError} when `implementation.specificationVersion` is
 *   not 1.
 */
export function assertSpecificationVersion(
  interfaceName: string,
  implementation: { readonly specificationVersion: unknown },
): void {
  if (implementation.specificationVersion !== 1) {
    throw new UnsupportedSpecificationError({
      interfaceName,
      version: implementation.specificationVersion,
    });
  }
}
