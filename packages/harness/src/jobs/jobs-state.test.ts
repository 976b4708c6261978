import { spawn } from 'node:child_process';
import type { SessionProjection } from '@spine/session-log';
import { createMemoryStore, Session } from '@spine/session-log';
import { isProcessRunning, processStartTime } from '@spine/tool-runtime';
import { describe, expect, it } from 'vitest';
import { JOBS_STATE, nextJobNumber, recoverJobs } from './jobs-state.js';
import { jobsContext } from './wiring.js';

async function sessionWith(starts: { id: string; pid: number; startTime?: number }[]) {
  const session = await Session.create({
    store: createMemoryStore(),
    id: `s-jobs-${Math.random().toString(36).slice(2)}`,
    projections: [JOBS_STATE as unknown as SessionProjection],
  });
  for (const start of starts)
    session.append('job/start', { command: `sleep ${start.id}`, outputPath: '/x.out', ...start });
  return session;
}

describe('recovering background jobs after a crash', () => {
  it('tells a live job from a gone one by pid and start time, never by a reused pid', async () => {
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    const pid = sleeper.pid as number;
    const startTime = processStartTime(pid) as number;
    try {
      expect(startTime).toBeGreaterThan(0);
      const session = await sessionWith([
        { id: 'job-1', pid, startTime },
        // The same pid with another start time: a reused pid, not the job.
        { id: 'job-2', pid, startTime: startTime + 1 },
        { id: 'job-3', pid: 2 ** 22 + 7, startTime: 1 },
        { id: 'job-4', pid },
      ]);
      session.append('job/end', {
        id: 'job-4',
        exitCode: 0,
        killed: false,
        by: 'self',
        outputBytes: 0,
      });
      expect(nextJobNumber(session)).toBe(5);
      const notes = recoverJobs(session, isProcessRunning);
      const recovered = session
        .events()
        .filter((event) => event.type === 'job/recovered')
        .map((event) => [
          (event.body as { id: string }).id,
          (event.body as { state: string }).state,
        ]);
      expect(recovered).toEqual([
        ['job-1', 'running'],
        ['job-2', 'gone'],
        ['job-3', 'gone'],
      ]);
      expect(notes[0]).toContain(`still runs as pid ${pid}`);
      expect(notes[1]).toContain('outcome unknown');
      // Recorded once: a second resume finds nothing open.
      expect(recoverJobs(session, isProcessRunning)).toEqual([]);
      await session.close();
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('lists jobs in the runtime context in KiB, with state and command on one line', () => {
    expect(jobsContext([])).toBeUndefined();
    const base = { killed: false, pid: 1, outputPath: '/x' };
    expect(
      jobsContext([
        { ...base, id: 'job-1', command: 'npm run dev', state: 'running', outputBytes: 5000 },
        {
          ...base,
          id: 'job-2',
          command: 'npm\ntest',
          state: 'exited',
          exitCode: 1,
          outputBytes: 10,
        },
      ]),
    ).toBe('job-1 running 4 KiB: npm run dev; job-2 exited 1 0 KiB: npm test');
    const many = Array.from({ length: 8 }, (_, i) => ({
      ...base,
      id: `job-${i + 1}`,
      command: 'true',
      state: i === 0 ? ('running' as const) : ('exited' as const),
      exitCode: 0,
      outputBytes: 0,
    }));
    expect(jobsContext(many)?.match(/job-\d+/g)).toEqual([
      'job-1',
      'job-4',
      'job-5',
      'job-6',
      'job-7',
      'job-8',
    ]);
  });
});
