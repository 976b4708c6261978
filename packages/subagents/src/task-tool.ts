import type { JsonSchema, SandboxMode, ToolDefinition, ToolOutput } from '@spine/protocol';
import { type ChildPlan, runChild } from './child-run.js';
import { InvalidTaskToolOptionsError } from './errors.js';
import { Semaphore } from './internal/semaphore.js';
import {
  type AgentProfile,
  BUILTIN_PROFILES,
  isReadOnlyProfile,
  narrowerSandbox,
} from './profile.js';
import type { TaskToolOptions } from './types.js';

/** The tool's name, as the model calls it. */
export const TASK_TOOL_NAME = 'task';

/** Arguments of the `task` tool. */
export interface TaskArguments {
  /** A short (3–8 words) description of the task, shown to the person and in the child's title. */
  description: string;
  /** The full instructions for the child: it sees nothing of the parent's conversation. */
  prompt: string;
  /** The agent profile to run (one of the listed names). */
  profile: string;
}

function describeTool(profiles: readonly AgentProfile[]): string {
  const lines = profiles.map((profile) => `- ${profile.name}: ${profile.description}`);
  return [
    'Delegates a self-contained task to a subagent with its own context window, and returns its final answer plus a record of the files it changed and the commands it ran. The subagent sees none of this conversation: put everything it needs in `prompt`. Use it for investigations that would fill your context, or for independent pieces of work; several read-only tasks in one response run in parallel.',
    'Profiles:',
    ...lines,
  ].join('\n');
}

function parameters(profiles: readonly AgentProfile[]): JsonSchema {
  return {
    type: 'object',
    properties: {
      description: {
        type: 'string',
        minLength: 1,
        description: 'A short (3–8 words) description of the task.',
      },
      prompt: { type: 'string', minLength: 1, description: 'The complete task for the subagent.' },
      profile: {
        type: 'string',
        enum: profiles.map((profile) => profile.name),
        description: 'Which subagent profile to run.',
      },
    },
    required: ['description', 'prompt', 'profile'],
    additionalProperties: false,
  };
}

function checkOptions(options: TaskToolOptions, profiles: readonly AgentProfile[]): void {
  if (profiles.length === 0)
    throw new InvalidTaskToolOptionsError({
      reason: 'no profiles; pass at least one (or leave profiles out for the built-ins)',
    });
  const names = new Set<string>();
  for (const profile of profiles) {
    if (names.has(profile.name))
      throw new InvalidTaskToolOptionsError({
        reason: `two profiles are named ${JSON.stringify(profile.name)}; merge them with mergeProfiles()`,
      });
    names.add(profile.name);
  }
  const positive = (value: number | undefined, what: string): void => {
    if (value !== undefined && (!Number.isFinite(value) || value <= 0))
      throw new InvalidTaskToolOptionsError({
        reason: `${what} must be a positive number, got ${String(value)}`,
      });
  };
  positive(options.maxParallel, 'maxParallel');
  if (
    options.maxResultChars !== undefined &&
    !(Number.isSafeInteger(options.maxResultChars) && options.maxResultChars >= 1000)
  )
    throw new InvalidTaskToolOptionsError({
      reason: `maxResultChars must be a whole number of at least 1000, got ${String(options.maxResultChars)}`,
    });
  positive(options.limits?.maxSteps, 'limits.maxSteps');
  positive(options.limits?.maxTokens, 'limits.maxTokens');
  positive(options.limits?.timeoutMs, 'limits.timeoutMs');
  if ((options.depth ?? 0) < 0)
    throw new InvalidTaskToolOptionsError({ reason: 'depth must be 0 or more' });
}

/**
 * Creates the `task` tool: each call starts a subagent, a child session in the parent's store
 * whose header links back to the parent (session id, seq of `agent/child/start`, tool call id),
 * runs one turn of an agent with the chosen profile's tools (a subset of the parent's), sandbox
 * (the parent's or narrower) and the parent's approval callback (questions labelled with the
 * child), and returns the child's final answer plus a record of what it changed. The child's
 * history never enters the parent's context. Calls with a read-only profile are
 * concurrency-safe (parallel, at most `maxParallel` at once); others run alone. The parent's
 * signal aborts the child; limits (steps, tokens, time) stop it; every failure is a tool error.
 *
 * @throws an {@link InvalidTaskToolOptionsError} when the options cannot work (no profiles,
 *   duplicates, bad limits).
 * @example
 * ```ts
 * const task = createTaskTool({
 *   session, store, tools: runtime, sandbox: runtime.sandbox,
 *   model: { model, modelId: 'deepseek-v4-flash' },
 *   createTools: ({ tools, sandbox }) => createToolRuntime({ cwd, sandbox,
 *     tools: createWorkspaceTools({ cwd }).filter((tool) => tools.includes(tool.spec.name)) }),
 * });
 * runtime.register(task);
 * ```
 */
export function createTaskTool(options: TaskToolOptions): ToolDefinition<TaskArguments> {
  const profiles = options.profiles ?? BUILTIN_PROFILES;
  checkOptions(options, profiles);
  const limit = new Semaphore(Math.floor(options.maxParallel ?? 4));
  const sandboxNow = (): SandboxMode =>
    typeof options.sandbox === 'function' ? options.sandbox() : options.sandbox;
  const depth = (options.depth ?? 0) + 1;
  const maxDepth = options.maxDepth ?? 1;
  const find = (name: string): AgentProfile | undefined =>
    profiles.find((profile) => profile.name === name);

  const plan = (args: TaskArguments): ChildPlan | string => {
    const profile = find(args.profile);
    if (!profile)
      return `Unknown subagent profile ${JSON.stringify(args.profile)}; use one of: ${profiles.map((p) => p.name).join(', ')}.`;
    if (depth > maxDepth)
      return `Subagents may not start subagents here (nesting depth is limited to ${maxDepth}); do the task yourself.`;
    const parentTools = options.tools.specs(options.agentName).map((spec) => spec.name);
    const wanted = profile.tools ?? parentTools;
    // Never more than the parent: the profile's list within the parent's visible tools, and the
    // task tool itself only while a grandchild would stay within the depth limit.
    const tools = parentTools.filter(
      (name) => wanted.includes(name) && (name !== TASK_TOOL_NAME || depth < maxDepth),
    );
    const sandbox = narrowerSandbox(sandboxNow(), profile.sandbox);
    return {
      info: { toolCallId: '', profile, description: args.description, depth, sandbox },
      tools,
      prompt: args.prompt,
    };
  };

  return {
    spec: {
      name: TASK_TOOL_NAME,
      description: describeTool(profiles),
      parameters: parameters(profiles),
    },
    permissions: {},
    isConcurrencySafe: (args: TaskArguments) => {
      const profile = find(args.profile);
      return profile !== undefined && isReadOnlyProfile(profile, sandboxNow());
    },
    async execute(args: TaskArguments, context): Promise<ToolOutput> {
      const planned = plan(args);
      if (typeof planned === 'string') return { content: planned, isError: true };
      let release: () => void;
      try {
        release = await limit.acquire(context.signal);
      } catch {
        return { content: 'The subagent did not start: the run was aborted.', isError: true };
      }
      try {
        planned.info.toolCallId = context.callId;
        return await runChild(options, planned, {
          toolCallId: context.callId,
          signal: context.signal,
          ...(context.onProgress ? { onProgress: context.onProgress } : {}),
        });
      } finally {
        release();
      }
    },
  };
}
