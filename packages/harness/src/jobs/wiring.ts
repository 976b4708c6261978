import type { Agent, SystemPrompt } from '@spine/agent-loop';
import type {
  AnyToolDefinition,
  JobEndBody,
  JobStartBody,
  SessionEvent,
  ToolResultBody,
} from '@spine/protocol';
import type { Session } from '@spine/session-log';
import type { JobInfo, JobKiller, JobManager } from '@spine/tool-runtime';
import { clip, recoverJobs } from './jobs-state.js';

/** A session's background jobs, as the harness wires them. */
export interface WiredJobs {
  /** The manager `bash`, `job_output` and `job_kill` use. */
  manager: JobManager;
  /** Stops one job for a person (`/kill`); recorded as `job/end` with `by: "person"`. */
  kill(id: string): Promise<JobInfo>;
  /** Stops every job (exit); each recorded as `job/end` with `by: "exit"`. */
  close(): Promise<void>;
}

/** What a job's end tells the model at its next step (nothing for a job the model stopped). */
export function jobEndNote(job: JobInfo): string | undefined {
  if (job.killedBy === 'model' || job.killedBy === 'exit') return undefined;
  const how =
    job.killedBy === 'person'
      ? 'was stopped by the user'
      : job.exitCode !== null && job.exitCode !== undefined
        ? `exited with code ${job.exitCode}`
        : `was ended by signal ${job.signal}`;
  return `[background job ${job.id} (${clip(job.command)}) ${how}; ${job.outputBytes} bytes of output, read the rest with job_output]`;
}

/** The runtime-context text of `jobs` (all running, the last 5 ended), or undefined when none. */
export function jobsContext(jobs: readonly JobInfo[]): string | undefined {
  if (jobs.length === 0) return undefined;
  // Every running job, and the last ended ones (the list does not grow with the session).
  const ended = jobs.filter((job) => job.state !== 'running');
  const shown = jobs.filter(
    (job) => job.state === 'running' || ended.indexOf(job) >= ended.length - 5,
  );
  return shown
    .map((job) => {
      const state =
        job.state === 'running'
          ? 'running'
          : job.killed
            ? 'killed'
            : `exited ${job.exitCode ?? job.signal}`;
      // Sizes in KiB: the context changes when a job writes a lot, not at every byte.
      return `${job.id} ${state} ${Math.floor(job.outputBytes / 1024)} KiB: ${clip(job.command)}`;
    })
    .join('; ');
}

/**
 * Records the manager's jobs in `session` (`job/start`, `job/end`), lists them in the runtime
 * context, and tells the model (the agent's `next-step` inbox) of a job that ended on its own or
 * by a person, and after a crash of each job that was running (still running, or gone with its
 * outcome unknown).
 */
export function wireJobs(options: {
  session: Session;
  manager: JobManager;
  agent: Agent;
  prompt: SystemPrompt;
  toolRuntime: Pick<typeof import('@spine/tool-runtime'), 'isProcessRunning'>;
}): WiredJobs {
  const { session, manager, agent } = options;
  const notify = (note: string): void => void agent.enqueue(note, 'next-step');
  options.prompt.register({ id: 'jobs', contexts: () => ({ jobs: jobsContext(manager.list()) }) });
  for (const note of recoverJobs(session, options.toolRuntime.isProcessRunning)) notify(note);
  manager.onEvent((event) => {
    const job = event.job;
    if (event.type === 'started') {
      const body: JobStartBody = {
        id: job.id,
        command: job.command,
        pid: job.pid,
        outputPath: job.outputPath,
        ...(job.startTime !== undefined ? { startTime: job.startTime } : {}),
      };
      session.append('job/start', body);
      // The job outlives this process: its record reaches the store now, so a crash right
      // after never leaves a running process that no resume knows of (flush writes at once).
      session.flush().catch(() => {});
      return;
    }
    const by: JobEndBody['by'] = job.killed ? (job.killedBy ?? 'model') : 'self';
    session.append('job/end', {
      id: job.id,
      exitCode: job.exitCode ?? null,
      signal: job.signal ?? null,
      killed: job.killed,
      by,
      outputBytes: job.outputBytes,
    } satisfies JobEndBody);
    const note = jobEndNote(job);
    if (note) notify(note);
  });
  return {
    manager,
    kill: (id: string) => manager.kill(id, 'person' satisfies JobKiller),
    close: async () => {
      await manager.close();
    },
  };
}

/**
 * Tools answering job calls from a recording (rerun): `job_output`, `job_kill` and `bash` calls
 * with `run_in_background` return their recorded results by call id; other `bash` calls run.
 */
export function recordedJobTools(
  events: readonly SessionEvent[],
  tools: AnyToolDefinition[],
): AnyToolDefinition[] {
  const results = new Map<string, ToolResultBody>();
  for (const event of events)
    if (event.type === 'tool/result') {
      const body = event.body as ToolResultBody;
      results.set(body.toolCallId, body);
    }
  const answer = (name: string, callId: string) => {
    const recorded = results.get(callId);
    if (!recorded || recorded.toolName !== name)
      return {
        content: `No recorded result for ${name} call ${callId}: a rerun does not start background jobs.`,
        isError: true,
      };
    return {
      content: recorded.content,
      isError: recorded.isError,
      ...(recorded.meta ? { meta: recorded.meta } : {}),
    };
  };
  return tools.map((tool) => {
    const name = tool.spec.name;
    if (name === 'job_output' || name === 'job_kill')
      return { ...tool, execute: async (_args, context) => answer(name, context.callId) };
    if (name !== 'bash') return tool;
    return {
      ...tool,
      execute: async (args, context) =>
        (args as { run_in_background?: boolean }).run_in_background === true
          ? answer(name, context.callId)
          : tool.execute(args, context),
    };
  });
}

/**
 * The workspace tools with background jobs (`bash` with `run_in_background`, `job_output`,
 * `job_kill`); with `recorded` (rerun) job calls answer from the recording.
 */
export function workspaceToolsWithJobs(
  toolRuntime: Pick<typeof import('@spine/tool-runtime'), 'createWorkspaceTools'>,
  options: Omit<import('@spine/tool-runtime').WorkspaceToolsOptions, 'jobs'>,
  jobs: JobManager,
  recorded: readonly SessionEvent[] | undefined,
): AnyToolDefinition[] {
  const tools = toolRuntime.createWorkspaceTools({ ...options, jobs }) as AnyToolDefinition[];
  return recorded ? recordedJobTools(recorded, tools) : tools;
}
