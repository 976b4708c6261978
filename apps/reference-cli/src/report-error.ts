import { ModelError, SpineError } from '@spine/protocol';
import { EXIT_CODES, type ExitCode } from './exit-codes.js';

/** The exit code for an error that ended a command. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof ModelError || (SpineError.isInstance(error) && isModelCode(error.code)))
    return EXIT_CODES.model;
  if (SpineError.isInstance(error)) {
    if (error.code === 'ABORTED') return EXIT_CODES.aborted;
    if (error.code === 'REPLAY_MISMATCH') return EXIT_CODES.mismatch;
    if (error.code === 'TOOL_DENIED') return EXIT_CODES.toolDenied;
    if (
      ['INVALID_CONFIG', 'SESSION_NOT_FOUND', 'SESSION_LOCKED', 'UNSUPPORTED_FORMAT'].includes(
        error.code,
      )
    ) {
      return EXIT_CODES.usage;
    }
  }
  return EXIT_CODES.internal;
}

function isModelCode(code: string): boolean {
  return [
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
  ].includes(code);
}

/** Prints an error for a person: the message (which says what to do), plus the code. */
export function reportError(error: unknown): void {
  if (SpineError.isInstance(error)) {
    process.stderr.write(`spine: ${error.message} [${error.code}]\n`);
    return;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`spine: unexpected error: ${message}\n`);
}
