import { describe, expect, it } from 'vitest';
import { isModelErrorCode, MODEL_ERROR_CODES, type SpineErrorCode } from './errors.js';
import { ModelError } from './model-client.js';
import { notStartedText, outcomeUnknownText } from './recovery-texts.js';

describe('the one wording of interrupted tool calls', () => {
  it('says whether the tool may have run, and what to do', () => {
    expect(outcomeUnknownText('the process stopped')).toBe(
      'outcome unknown: the process stopped while this tool was running; it may have had effects. Verify the state before retrying.',
    );
    expect(notStartedText('the run was aborted')).toBe(
      'not started: the run was aborted before this tool ran. Retry it if it is still needed.',
    );
  });
});

describe('the model error codes', () => {
  it('are one list that ModelError and the checks share', () => {
    const spine: readonly SpineErrorCode[] = MODEL_ERROR_CODES;
    expect(new Set(spine).size).toBe(MODEL_ERROR_CODES.length);
    for (const code of MODEL_ERROR_CODES) {
      expect(isModelErrorCode(code)).toBe(true);
      const error = new ModelError({ code, message: 'm', provider: 'p', retryable: false });
      expect(error.code).toBe(code);
    }
    for (const other of ['INVALID_EVENT', 'TOOL_FAILED', 'rate_limited', '']) {
      expect(isModelErrorCode(other)).toBe(false);
    }
  });
});
