import type { SessionEvent } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { styleFor } from './style.js';
import { renderTranscript } from './transcript.js';

const AT = '2026-01-01T00:00:00.000Z';
const event = (seq: number, type: string, body: Record<string, unknown>): SessionEvent =>
  ({ seq, type, at: AT, body }) as unknown as SessionEvent;

describe('background jobs in the transcript', () => {
  it('shows each job start, end and recovery on one line, escaped', () => {
    const text = renderTranscript(
      [
        event(1, 'job/start', { id: 'job-1', command: 'npm run dev\u001b[2J', pid: 9, outputPath: '/x' }),
        event(2, 'job/end', { id: 'job-1', exitCode: null, signal: 'SIGTERM', killed: true, by: 'person', outputBytes: 12 }),
        event(3, 'job/end', { id: 'job-2', exitCode: 3, killed: false, by: 'self', outputBytes: 0 }),
        event(4, 'job/recovered', { id: 'job-3', command: 'sleep 9', pid: 77, state: 'running' }),
        event(5, 'job/recovered', { id: 'job-4', command: 'sleep 9', pid: 78, state: 'gone' }),
      ],
      { style: styleFor({ isTTY: false }, {}) },
    ); // biome-ignore format: one event per line
    expect(text).toContain('[job job-1 started: npm run dev');
    expect(text).not.toContain('\u001b');
    expect(text).toContain('[job job-1 stopped (person), 12 bytes of output]');
    expect(text).toContain('[job job-2 exited 3, 0 bytes of output]');
    expect(text).toContain('[job job-3 still running after a crash (pid 77)]');
    expect(text).toContain('[job job-4 gone after a crash: outcome unknown]');
  });
});
