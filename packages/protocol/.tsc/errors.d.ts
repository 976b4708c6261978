declare const BRAND: unique symbol;
/**
 * Stable error codes shared by every Spine package. New codes may be added in a minor
 * release; an existing code never changes meaning.
 */
export type SpineErrorCode = 'INVALID_EVENT' | 'UNKNOWN_EVENT_TYPE' | 'ILLEGAL_SURFACE_OP' | 'SESSION_LOCKED' | 'SESSION_NOT_FOUND' | 'SESSION_EXISTS' | 'SESSION_CORRUPT' | 'SESSION_CLOSED' | 'UNSUPPORTED_FORMAT' | 'STORE_UNAVAILABLE' | 'RATE_LIMITED' | 'OVERLOADED' | 'SERVER_ERROR' | 'NETWORK_ERROR' | 'STREAM_BROKEN' | 'STREAM_IDLE' | 'REQUEST_TIMEOUT' | 'AUTH_FAILED' | 'INSUFFICIENT_BALANCE' | 'INVALID_REQUEST' | 'CONTEXT_OVERFLOW' | 'MODEL_NOT_FOUND' | 'TOOL_NOT_FOUND' | 'INVALID_TOOL_ARGUMENTS' | 'TOOL_DENIED' | 'TOOL_TIMEOUT' | 'TOOL_FAILED' | 'PATH_REFUSED' | 'STALE_FILE' | 'SANDBOX_UNAVAILABLE' | 'URL_REFUSED' | 'FETCH_FAILED' | 'PROVIDER_UNAVAILABLE' | 'PROVIDER_AMBIGUOUS' | 'LSP_UNAVAILABLE' | 'LSP_FAILED' | 'COMPACTION_FAILED' | 'COMPACTION_DISABLED' | 'REPLAY_MISMATCH' | 'INVALID_CONFIG' | 'ABORTED' | 'UNSUPPORTED_SPECIFICATION' | 'INTERNAL';
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
export declare class SpineError extends Error {
    /** The stable code, for programs. */
    readonly code: SpineErrorCode;
    /** Brand checked by {@link SpineError.isInstance}. */
    readonly [BRAND] = true;
    constructor(options: SpineErrorOptions);
    /** True when `value` is a SpineError from any copy of this package. */
    static isInstance(value: unknown): value is SpineError;
}
/** Thrown when an interface reports a `specificationVersion` this consumer does not know. */
export declare class UnsupportedSpecificationError extends SpineError {
    constructor(options: {
        interfaceName: string;
        version: unknown;
    });
}
/**
 * Throws {@link UnsupportedSpecificationError} unless `implementation.specificationVersion` is 1.
 *
 * @throws {UnsupportedSpecificationError}
 */
export declare function assertSpecificationVersion(interfaceName: string, implementation: {
    readonly specificationVersion: unknown;
}): void;
export {};
//# sourceMappingURL=errors.d.ts.map