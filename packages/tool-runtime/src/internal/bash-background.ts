import { spawn } from 'node:child_process';
import type { ToolOutput } from '@spine/protocol';
import type { JobInfo, JobManager, JobOutputSlice } from '../jobs.js';
import type { SandboxBackend, SandboxCommand } from '../sandbox.js';

/** Renders a job's state in one line: `job-1 running (1.2 kB)`, `job-2 exited 1 (40 B)`. */
export function describeJob(job: JobInfo): string {
  const size = `${job.outputBytes} bytes of output`;
  if (job.state === 'running') return `${job.id} running, ${size}`;
  const how = job.killed
    ? 'killed'
    : job.exitCode !== null && job.exitCode !== undefined
      ? `exited with code ${job.exitCode}`
      : `ended by signal ${job.signal}`;
  return `${job.id} ${how}, ${size}`;
}

/** The text of a slice, with a note on what was skipped before it. */
export function renderSlice(slice: JobOutputSlice, empty: string): string {
  const parts: string[] = [];
  if (slice.skipped > 0)
    parts.push(
      `[${slice.skipped} bytes before offset ${slice.start} not shown; read them with offset and length]`,
    );
  parts.push(slice.text.length > 0 ? slice.text : empty);
  return parts.join('\n');
}

/** Starts `confined` as a background job of `jobs` and renders the tool result. */
export async function startBackgroundJob(
  jobs: JobManager,
  options: {
    confined: SandboxCommand;
    backend: SandboxBackend;
    env: NodeJS.ProcessEnv;
    meta: Record<string, string>;
  },
): Promise<ToolOutput> {
  const { confined, backend, env } = options;
  const { job, firstOutput } = await jobs.start(confined.command, (output) => {
    // The job writes its output file itself where the backend allows it.
    if (backend.spawn) return backend.spawn(confined, { env, output });
    const wrapped = backend.wrap(confined);
    return spawn(wrapped.file, wrapped.args, {
      cwd: confined.cwd,
      env,
      detached: true,
      stdio: ['ignore', output, output],
    });
  });
  const head =
    job.state === 'running'
      ? `Started background job ${job.id} (${describeJob(job)}). Read its output with job_output, stop it with job_kill.`
      : `Background job ${describeJob(job)} before the first-output wait ended.`;
  const shown = renderSlice(firstOutput, '(no output yet)');
  const more = job.outputBytes > firstOutput.end ? `\n[more output: job_output ${job.id}]` : '';
  return {
    content: `${head}\n${shown}${more}`,
    isError: job.state === 'exited' && job.exitCode !== 0,
    meta: {
      ...options.meta,
      contentType: 'text/plain',
      jobId: job.id,
      jobPid: job.pid,
      ...(job.startTime !== undefined ? { jobStartTime: job.startTime } : {}),
    },
  };
}
