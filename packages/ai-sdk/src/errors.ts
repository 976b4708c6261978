import { SpineError } from '@spine/protocol/core';

/** Thrown for options of `spineTools` or `spineRecorder` that cannot work. */
export class AiSdkOptionsError extends SpineError {
  constructor(options: { reason: string }) {
    super({ code: 'INVALID_CONFIG', message: `@spine/ai-sdk: ${options.reason}` });
  }
}

/**
 * Thrown by a recorded model call when the call could not be written to the session log (a
 * closed session, a body the log refuses): the model is not called, so nothing goes unrecorded.
 */
export class RecordingFailedError extends SpineError {
  constructor(options: { cause: unknown }) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super({
      code: 'INTERNAL',
      message: `@spine/ai-sdk: the model call was not made because it could not be recorded (${reason}); check that the session is open and writable.`,
      cause: options.cause,
    });
  }
}
