import { z } from 'zod';

// Bodies of the events of background shell jobs (issue 39): a job started by `bash` with
// `run_in_background`, its end (exit, kill, the agent's exit), and what a resume after a crash
// found of a job that was running. They never take part in a model request: the model learns of a
// job through tool results and inbox input, which are recorded as such.

const JobIdSchema = z
  .string()
  .min(1)
  .max(64)
  .describe('The job id the model names it by (`job-1`).');
const ProcessSchema = {
  pid: z.number().int().describe('Process id of the job (its process group leader).'),
  startTime: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'Its start time from `/proc/<pid>/stat` (clock ticks after boot): a reused pid differs.',
    ),
};

/** Body of `job/start`: a background job was started by the `bash` call `callId`. */
export const JobStartBodySchema = z.object({
  id: JobIdSchema,
  command: z.string().describe('The shell command line.'),
  ...ProcessSchema,
  callId: z.string().optional().describe('The `bash` tool call that started it.'),
  outputPath: z.string().describe('Where its output is streamed to, beside the session.'),
});
/** Body of `job/start`. */
export type JobStartBody = z.infer<typeof JobStartBodySchema>;

/** Body of `job/end`: a background job ended. */
export const JobEndBodySchema = z.object({
  id: JobIdSchema,
  exitCode: z.number().int().nullable().describe('Exit code, or null when a signal ended it.'),
  signal: z.string().nullable().optional().describe('The signal that ended it, if any.'),
  killed: z
    .boolean()
    .describe('True when it was stopped (job_kill, `/kill`, or the agent exiting).'),
  by: z
    .literal(['self', 'model', 'person', 'exit'])
    .describe(
      '`self`: it ended on its own; `model`: job_kill; `person`: `/kill` or Ctrl-C; `exit`: the agent exited.',
    ),
  outputBytes: z.number().int().min(0).describe('Bytes of output it wrote in all.'),
});
/** Body of `job/end`. */
export type JobEndBody = z.infer<typeof JobEndBodySchema>;

/**
 * Body of `job/recovered`: a resume found a job that was running when the agent stopped without
 * ending it (a crash). `running`: the same process (pid and start time) still runs, unowned;
 * `gone`: it is not running; its outcome and side effects are unknown.
 */
export const JobRecoveredBodySchema = z.object({
  id: JobIdSchema,
  command: z.string().describe('The shell command line.'),
  ...ProcessSchema,
  state: z
    .literal(['running', 'gone'])
    .describe('`running`: the same process still runs; `gone`: it ended, outcome unknown.'),
});
/** Body of `job/recovered`. */
export type JobRecoveredBody = z.infer<typeof JobRecoveredBodySchema>;
