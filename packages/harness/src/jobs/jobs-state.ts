import type { JobStartBody, JsonValue } from '@spine/protocol';
import { outcomeUnknownText } from '@spine/protocol';
import type { Session, SessionProjection } from '@spine/session-log';

/** The state of {@link JOBS_STATE}: the jobs started and not ended, and the last job number. */
export interface JobsState {
  /** Jobs with a `job/start` and no `job/end` or `job/recovered`, by id. */
  open: { [id: string]: JobStartBody };
  /** The highest `job-<n>` started. */
  last: number;
  // An index signature keeps the state a JsonValue.
  [key: string]: JsonValue;
}

/** The session's background jobs folded over the log; part of the agent's projections. */
export const JOBS_STATE: SessionProjection<JobsState> = {
  name: 'harness/jobs',
  version: 1,
  types: ['job/start', 'job/end', 'job/recovered'],
  initial: () => ({ open: {}, last: 0 }),
  apply(state, event) {
    const body = event.body as JobStartBody;
    const open = { ...state.open };
    if (event.type !== 'job/start') {
      delete open[body.id];
      return { ...state, open };
    }
    open[body.id] = body;
    const n = Number(/^job-(\d+)$/.exec(body.id)?.[1] ?? 0);
    return { open, last: Math.max(state.last, n) };
  },
};

/** The folded jobs of `session`; empty for a session opened without {@link JOBS_STATE}. */
function jobsState(session: Session): JobsState {
  try {
    return session.projection<JobsState>(JOBS_STATE.name);
  } catch {
    return JOBS_STATE.initial();
  }
}

/** The number of the next job id, after the last the session started (`job-<n>`). */
export function nextJobNumber(session: Session): number {
  return jobsState(session).last + 1;
}

/**
 * After a crash: each job the log started without an end is looked up by pid and start time
 * (never a reused pid) and recorded as `job/recovered`, `running` or `gone`; the returned notes
 * (for the model's next step) say its outcome is unknown.
 */
export function recoverJobs(
  session: Session,
  isRunning: (identity: { pid: number; startTime: number }) => boolean,
): string[] {
  const open = Object.values(jobsState(session).open);
  const notes: string[] = [];
  for (const job of open) {
    const running =
      job.startTime !== undefined && isRunning({ pid: job.pid, startTime: job.startTime });
    session.append('job/recovered', {
      id: job.id,
      command: job.command,
      pid: job.pid,
      ...(job.startTime !== undefined ? { startTime: job.startTime } : {}),
      state: running ? 'running' : 'gone',
    });
    notes.push(
      running
        ? `[background job ${job.id} (${clip(job.command)}) was running when Spine stopped and still runs as pid ${job.pid}, no longer managed by this session (job_output and job_kill cannot reach it); stop it with bash \`kill ${job.pid}\` if it is not needed]`
        : `[background job ${job.id} (${clip(job.command)}) was running when Spine stopped and is gone now: ${outcomeUnknownText('Spine stopped')}]`,
    );
  }
  return notes;
}

/** A command line on one line, at most 80 characters. */
export function clip(command: string): string {
  const line = command.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
