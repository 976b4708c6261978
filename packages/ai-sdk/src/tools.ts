import type {
  ApprovalAnswer,
  ApprovalRequest,
  JsonObject,
  SandboxMode,
  ToolResultBody,
  ToolRunEvent,
} from '@spine/protocol';
import {
  type ApprovalPolicy,
  type ApprovalPolicyName,
  type ApprovalRule,
  createToolRuntime,
  createWorkspaceTools,
  type InvalidRuntimeOptionsError,
  type SandboxBackend,
  type ToolRuntime,
} from '@spine/tool-runtime';
import { AiSdkOptionsError } from './errors.js';
import { aiJsonSchema } from './internal/ai-schema.js';

/** Names of the workspace tools {@link spineTools} can expose. */
export type SpineToolName = 'read' | 'write' | 'edit' | 'grep' | 'glob' | 'list' | 'bash';

/** Every workspace tool, in the order {@link spineTools} returns them. */
export const SPINE_TOOL_NAMES: readonly SpineToolName[] = [
  'read',
  'write',
  'edit',
  'grep',
  'glob',
  'list',
  'bash',
];

/** Options of {@link spineTools}. */
export interface SpineToolsOptions {
  /** Workspace root (absolute): file tools never leave it, `bash` runs in it. */
  cwd: string;
  /** Which tools to expose. Default: all of {@link SPINE_TOOL_NAMES}. */
  tools?: readonly SpineToolName[];
  /** Sandbox mode of `bash` and the file tools. Default `workspace-write`. */
  sandbox?: SandboxMode;
  /** Approval policy. Default `ask`: writes and commands need `approve`'s answer. */
  approval?: ApprovalPolicyName | ApprovalPolicy;
  /** Allow/deny rules by tool and argument (shell command lines are parsed). */
  rules?: ApprovalRule[];
  /**
   * Answers the policy's questions (`once`, `always` or `deny`). Without it every call the policy
   * asks about is denied with a tool error naming the policy: nothing runs unasked.
   */
  approve?: (
    request: ApprovalRequest,
    options: { signal?: AbortSignal },
  ) => Promise<ApprovalAnswer>;
  /** Called for every approval decision, tool start and result, in call order. */
  onEvent?: (event: ToolRunEvent) => void;
  /** Workspace globs the tools refuse to touch, e.g. `['.env']`. */
  exclude?: string[];
  /** Network of `bash` commands: `'off'` (default) or `{ domains }` through a filtering proxy. */
  network?: 'off' | { domains: readonly string[] };
  /** Environment of `bash` commands. Default: the core variables of `createShellEnv`. */
  env?: NodeJS.ProcessEnv;
  /** OS sandbox backend: omitted to detect bubblewrap, `null` for none (then `bash` refuses confined modes). */
  sandboxBackend?: SandboxBackend | null;
  /** Results longer than this many characters are cut (`meta.truncated`). Default 30,000. */
  maxResultChars?: number;
  /** A tool runtime you built yourself (its tools and policy); the options above are then unused. */
  runtime?: ToolRuntime;
}

/** What a Spine tool returns to the AI SDK: the result as the model sees it, plus metadata. */
export interface SpineToolOutput {
  /** The text the model sees. */
  content: string;
  /** True for a denial, refusal, invalid arguments, timeout or failure. */
  isError: boolean;
  /** `ok`, `denied`, `invalid`, `not-found`, `aborted`, … when the runtime sets one. */
  outcome?: ToolResultBody['outcome'];
  /** Truncation, source path, sandbox backend, duration and the like. */
  meta?: ToolResultBody['meta'];
}

/**
 * A tool's input schema: the tool's JSON Schema as a Standard Schema v1 with the Standard JSON
 * Schema converter, which the AI SDK (`ai` 6 and 7) accepts as `inputSchema`. Arguments are
 * validated by Spine's runtime when the tool runs.
 */
export interface SpineToolInputSchema {
  /** The Standard Schema interface (standardschema.dev). */
  readonly '~standard': {
    /** Standard Schema version. */
    readonly version: 1;
    /** `spine`. */
    readonly vendor: string;
    /** Accepts any value: the tool runtime validates (and names each bad field) when it runs. */
    readonly validate: (value: unknown) => {
      readonly value: JsonObject;
      readonly issues?: undefined;
    };
    /** The tool's JSON Schema, for input and output alike. */
    readonly jsonSchema: {
      /** The schema of the tool's arguments (whatever `target` is asked). */
      readonly input: (options: { readonly target: string }) => JsonObject;
      /** The same schema. */
      readonly output: (options: { readonly target: string }) => JsonObject;
    };
  };
}

/** What the model sees of a tool's result: its text, as an error when the call failed. */
export type SpineToolModelOutput =
  | { readonly type: 'text'; readonly value: string }
  | { readonly type: 'error-text'; readonly value: string };

/**
 * One AI SDK tool backed by Spine's runtime: assignable to the AI SDK's `Tool` (and a `ToolSet`
 * entry) in `ai` 6 and 7, typed without importing `ai`.
 */
export interface SpineTool {
  /** A function tool. */
  readonly type: 'function';
  /** What the tool does, for the model. */
  readonly description: string;
  /** The tool's parameters. */
  readonly inputSchema: SpineToolInputSchema;
  /** Runs the call through Spine's tool runtime. Never rejects for the model's sake. */
  execute(
    input: JsonObject,
    options: { readonly toolCallId: string; readonly abortSignal?: AbortSignal | undefined },
  ): Promise<SpineToolOutput>;
  /** The result as the model sees it. */
  toModelOutput(options: { readonly output: SpineToolOutput }): SpineToolModelOutput;
}

/** The AI SDK tools {@link spineTools} returns, by name. */
export type SpineToolSet = Record<string, SpineTool>;

function runtimeOf(options: SpineToolsOptions): ToolRuntime {
  if (options.runtime) return options.runtime;
  const names = options.tools ?? SPINE_TOOL_NAMES;
  for (const name of names) {
    if (!SPINE_TOOL_NAMES.includes(name))
      throw new AiSdkOptionsError({
        reason: `unknown tool ${JSON.stringify(name)}; choose from ${SPINE_TOOL_NAMES.join(', ')}`,
      });
  }
  const all = createWorkspaceTools({
    cwd: options.cwd,
    ...(options.exclude ? { exclude: options.exclude } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.network ? { network: options.network } : {}),
    ...(options.sandboxBackend !== undefined ? { sandboxBackend: options.sandboxBackend } : {}),
  });
  return createToolRuntime({
    cwd: options.cwd,
    tools: all.filter((tool) => names.includes(tool.spec.name as SpineToolName)),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.approval ? { approval: options.approval } : {}),
    ...(options.rules ? { rules: options.rules } : {}),
    ...(options.sandboxBackend !== undefined ? { sandboxBackend: options.sandboxBackend } : {}),
    ...(options.maxResultChars !== undefined ? { maxResultChars: options.maxResultChars } : {}),
  });
}

/**
 * Returns AI SDK tools backed by Spine's tool runtime: `read`, `write`, `edit`, `grep`, `glob`,
 * `list` and `bash`, with the same input schemas, path guard, approval policy and hardened
 * bubblewrap sandbox as inside Spine. Pass them to `generateText`/`streamText` as `tools`.
 *
 * Contract: a tool never throws for the model's sake. Invalid arguments, refused paths, denials
 * (including every call the policy asks about when there is no `approve`), timeouts and failures
 * are returned as `{ isError: true, content }` and reach the model as an `error-text` result.
 *
 * @throws an {@link AiSdkOptionsError} for an unknown tool name.
 * @throws an {@link InvalidRuntimeOptionsError} for a relative or missing `cwd`.
 * @example
 * ```ts
 * const tools = spineTools({ cwd: process.cwd(), approve: async () => 'once' });
 * const result = await generateText({ model, tools, stopWhen: stepCountIs(5), prompt: 'Run the tests' });
 * ```
 */
export function spineTools(options: SpineToolsOptions): SpineToolSet {
  if (typeof options?.cwd !== 'string')
    throw new AiSdkOptionsError({ reason: 'spineTools needs { cwd } (the workspace root)' });
  const runtime = runtimeOf(options);
  const set: SpineToolSet = {};
  for (const spec of runtime.specs()) {
    const name = spec.name;
    set[name] = {
      type: 'function',
      description: spec.description,
      inputSchema: aiJsonSchema(spec.parameters as JsonObject),
      execute: async (
        input: JsonObject,
        { toolCallId, abortSignal }: { toolCallId: string; abortSignal?: AbortSignal | undefined },
      ): Promise<SpineToolOutput> => {
        const call = {
          type: 'tool-call' as const,
          id: toolCallId,
          name,
          arguments: JSON.stringify(input ?? {}),
        };
        const [result] = await runtime.run([call], {
          ...(abortSignal ? { signal: abortSignal } : {}),
          ...(options.onEvent ? { onEvent: options.onEvent } : {}),
          ...(options.approve ? { approve: options.approve } : {}),
        });
        if (!result) return { content: `${name}: no result`, isError: true };
        return {
          content: result.content,
          isError: result.isError,
          ...(result.outcome ? { outcome: result.outcome } : {}),
          ...(result.meta ? { meta: result.meta } : {}),
        };
      },
      toModelOutput: ({ output }: { readonly output: SpineToolOutput }): SpineToolModelOutput =>
        output.isError
          ? { type: 'error-text', value: output.content }
          : { type: 'text', value: output.content },
    };
  }
  return set;
}
