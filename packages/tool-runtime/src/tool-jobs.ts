import type { ToolDefinition } from '@spine/protocol';
import { type ZodType, z } from 'zod';
import { defineTool } from './define-tool.js';
import { describeJob, renderSlice } from './internal/bash-background.js';
import { failureOutput } from './internal/tool-support.js';
import type { JobManager } from './jobs.js';

/** Options of {@link createJobTools}. */
export interface JobToolsOptions {
  /** The session's jobs. */
  jobs: JobManager;
  /** Bytes of output one `job_output` call returns at most. Default 30,000. */
  maxOutputBytes?: number;
}

/** Arguments of the `job_output` tool. */
export interface JobOutputArguments {
  /** The job id (`job-1`). */
  id: string;
  /** Byte offset to read from; omitted: the output new since the last read. */
  offset?: number;
  /** Bytes to read from `offset`. Default and maximum: the tool's cap. */
  length?: number;
}

/** Arguments of the `job_kill` tool. */
export interface JobKillArguments {
  /** The job id (`job-1`). */
  id: string;
}

const JobOutputSchema = z.object({
  id: z.string().min(1).describe('The job id, e.g. job-1.'),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'Byte offset to read from (older output); omit to get the output new since the last read.',
    ),
  length: z.number().int().min(1).optional().describe('Bytes to read from offset.'),
});

const JobKillSchema = z.object({ id: z.string().min(1).describe('The job id, e.g. job-1.') });

/**
 * Creates `job_output` (new output of a background job since the last read, or a byte range of
 * its older output, capped) and `job_kill` (stops the job's process group: SIGTERM, then SIGKILL).
 * Every byte they return enters the log as an ordinary tool result.
 */
export function createJobTools(
  options: JobToolsOptions,
): [ToolDefinition<JobOutputArguments>, ToolDefinition<JobKillArguments>] {
  const { jobs } = options;
  const cap = options.maxOutputBytes ?? 30_000;
  const output = defineTool({
    name: 'job_output',
    description: `Read a background job's output: what is new since the last read (at most ${cap} bytes, the newest), or with offset (and length) any older part still kept. Also tells whether the job still runs or its exit code.`,
    parameters: JobOutputSchema as ZodType<JobOutputArguments>,
    isConcurrencySafe: true,
    execute: async (args) => {
      try {
        const slice =
          args.offset === undefined
            ? jobs.readNew(args.id, cap)
            : jobs.readRange(args.id, args.offset, Math.min(args.length ?? cap, cap));
        const job = jobs.info(args.id);
        return {
          content: `[${describeJob(job)}; bytes ${slice.start}-${slice.end}]\n${renderSlice(slice, '(no new output)')}`,
          meta: {
            contentType: 'text/plain',
            jobId: job.id,
            jobState: job.state,
            rangeStart: slice.start,
            rangeEnd: slice.end,
          },
        };
      } catch (error) {
        return failureOutput(error);
      }
    },
  });
  const kill = defineTool({
    name: 'job_kill',
    description:
      'Stop a background job and everything it started (its process group): SIGTERM, then SIGKILL after a grace period.',
    parameters: JobKillSchema as ZodType<JobKillArguments>,
    execute: async (args) => {
      try {
        const before = jobs.info(args.id);
        const job = await jobs.kill(args.id);
        const content =
          before.state === 'exited'
            ? `${args.id} had already exited: ${describeJob(job)}.`
            : `Stopped ${describeJob(job)}.`;
        return { content, meta: { contentType: 'text/plain', jobId: job.id } };
      } catch (error) {
        return failureOutput(error);
      }
    },
  });
  return [output, kill];
}
