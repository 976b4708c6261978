import type { AnyToolDefinition } from '@spine/protocol';
import type { JobManager } from './jobs.js';
import type { SandboxBackend } from './sandbox.js';
import { createBashTool } from './tool-bash.js';
import { createEditTool } from './tool-edit.js';
import { createGlobTool } from './tool-glob.js';
import { createGrepTool } from './tool-grep.js';
import { createJobTools } from './tool-jobs.js';
import { createListTool } from './tool-list.js';
import { createReadTool } from './tool-read.js';
import { createWriteTool } from './tool-write.js';
import type { WorkspaceToolOptions } from './types.js';

/** Options of {@link createWorkspaceTools}. */
export interface WorkspaceToolsOptions extends WorkspaceToolOptions {
  /** OS sandbox for `bash`: a backend, `null` for none, omitted to use the runtime's or detect one. */
  sandboxBackend?: SandboxBackend | null;
  /** Environment of `bash` commands; default `createShellEnv(process.env)` (the core variables). */
  env?: NodeJS.ProcessEnv;
  /** Network of `bash` commands: `'off'` (default) or `{ domains }` through a filtering proxy. */
  network?: 'off' | { domains: readonly string[] };
  /** Background jobs: `bash` gains `run_in_background`, and `job_output` and `job_kill` are added. */
  jobs?: JobManager;
  /** The session the tools serve: `bash` tags its unsandboxed commands with it (see `TOOL_CALL_ENV`). */
  sessionId?: () => string;
}

/**
 * Creates the built-in workspace tools: `read`, `write`, `edit`, `grep`, `glob`, `list`, `bash`
 * (and `job_output`, `job_kill` with `jobs`).
 * Reads are concurrency-safe; writes, edits and commands are barriers.
 *
 * @example
 * ```ts
 * const runtime = createToolRuntime({ cwd, tools: createWorkspaceTools({ cwd, exclude: ['.env'] }) });
 * ```
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions): AnyToolDefinition[] {
  const tools = [
    createReadTool(options),
    createWriteTool(options),
    createEditTool(options),
    createGrepTool(options),
    createGlobTool(options),
    createListTool(options),
    createBashTool(options),
    ...(options.jobs ? createJobTools({ jobs: options.jobs }) : []),
  ];
  return tools as unknown as AnyToolDefinition[];
}
