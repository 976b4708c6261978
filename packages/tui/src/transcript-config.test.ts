import type { SessionEvent } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { styleFor } from './style.js';
import { renderTranscript } from './transcript.js';

const AT = '2026-01-01T00:00:00.000Z';

/** A `session/config` event as the log records it. */
function configEvent(seq: number, body: Record<string, unknown>): SessionEvent {
  return { seq, type: 'session/config', at: AT, body } as unknown as SessionEvent;
}

describe('session/config in the transcript', () => {
  it('shows each recorded setting change with the value before it, escaped', () => {
    const text = renderTranscript(
      [
        configEvent(1, { option: 'approval', value: 'never-ask', previous: 'ask', by: 'client' }),
        configEvent(2, { option: 'model', value: 'openai/gpt-\u001b[2Jx', by: 'person' }),
      ],
      { style: styleFor({ isTTY: false }, {}) },
    );
    expect(text).toContain('[approval preset: never-ask (was ask), set by the client]');
    expect(text).toContain('[model: openai/gpt-');
    expect(text).not.toContain('\u001b');
  });
});
