import { describe, expect, it } from 'vitest';
import type { TurnResult } from '../types.js';
import { turnOutcome } from './turn-outcome.js';

const base: TurnResult = {
  reason: 'completed',
  turn: 1,
  steps: 1,
  usage: { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 },
  text: '',
  deniedTools: [],
};

describe('turnOutcome', () => {
  it('maps each way a turn can end to an exit-code class', () => {
    expect(turnOutcome(base)).toBe('success');
    expect(turnOutcome({ ...base, deniedTools: ['bash'] })).toBe('tool-denied');
    expect(turnOutcome({ ...base, reason: 'error' })).toBe('model-failure');
    expect(turnOutcome({ ...base, reason: 'aborted' })).toBe('aborted');
    expect(turnOutcome({ ...base, reason: 'max-steps' })).toBe('max-steps');
    expect(turnOutcome({ ...base, reason: 'stuck' })).toBe('stuck');
  });
});
