import { realpathSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type {
  AnyToolDefinition,
  SandboxMode,
  ToolCallPart,
  ToolHooks,
  ToolResultBody,
  ToolRunOptions,
  ToolScheduler,
  ToolSpec,
} from '@spine/protocol';
import { assertSpecificationVersion, TOOL_NAME_PATTERN } from '@spine/protocol';
import {
  type ApprovalPolicy,
  type ApprovalPolicyName,
  type ApprovalRule,
  createApprovalPolicy,
} from './approval.js';
import { toParametersSchema } from './define-tool.js';
import { InvalidRuntimeOptionsError, InvalidToolDefinitionError } from './errors.js';
import { ApprovalGate } from './internal/approval-gate.js';
import { KeyedLock } from './internal/keyed-lock.js';
import type { PipelineState, RegisteredTool } from './internal/pipeline.js';
import { runBatch } from './internal/scheduler.js';
import { compileArgumentValidator } from './internal/validate.js';
import { DEFAULT_PROTECTED_PATHS } from './protected-paths.js';
import { createReadStateTracker, READ_STATE_SERVICE } from './read-state.js';
import { createNoneSandbox, type SandboxBackend, type SandboxBackendInfo } from './sandbox.js';
import { detectSandboxSync } from './sandbox-bwrap.js';

/** Options of {@link createToolRuntime}. */
export interface ToolRuntimeOptions {
  /** Workspace root; resolved to its real path. */
  cwd: string;
  /** Tools to register now (the list is only read). */
  tools?: readonly AnyToolDefinition[];
  /** Sandbox mode. Default `workspace-write`. */
  sandbox?: SandboxMode;
  /** Approval policy (a built-in name or your own). Default `ask`. */
  approval?: ApprovalPolicyName | ApprovalPolicy;
  /** Allow/deny rules by tool and argument pattern. */
  rules?: ApprovalRule[];
  /** Initial hook chains; more can be pushed onto `runtime.hooks` later. */
  hooks?: ToolHooks;
  /** Safe calls running at once. Default 8. */
  maxConcurrency?: number;
  /** Results longer than this many characters are truncated. Default 30,000. */
  maxResultChars?: number;
  /** Which tools an agent sees (and may call). Default: all. */
  visibility?: (agent: string | undefined, tool: AnyToolDefinition) => boolean;
  /** OS sandbox for shell commands: a backend, `null` for none, or omitted to detect bubblewrap. */
  sandboxBackend?: SandboxBackend | null;
  /** How long a tool may keep running after its signal fired before its result is given up. Default 2,000 ms. */
  abortGraceMs?: number;
  /** Extra per-session services handed to tools in `context.services`. */
  services?: { [key: string]: unknown };
  /**
   * Workspace-relative globs whose writes by file tools need a person's answer under every policy
   * (rules, hooks and earlier `always` answers do not count) unless the sandbox is
   * `danger-full-access`. Default {@link DEFAULT_PROTECTED_PATHS}; `[]` turns this off.
   */
  protectedPaths?: readonly string[];
  /**
   * Tools whose own approval mapping governs their writes to some protected paths, by tool name:
   * `{ remember: ['.spine/memory.md'] }` lets the `remember` tool write that file under the policy
   * (and its own rules), while every other tool still needs a person for it. Globs as in
   * `protectedPaths`; paths not listed for a tool stay protected for it. Default: none.
   */
  protectedPathWriters?: { readonly [toolName: string]: readonly string[] };
  /** How long the `approve` callback may take before the call is denied. Default: no limit. */
  approvalTimeoutMs?: number;
}

/** A registry plus scheduler: what the agent loop runs tool calls with. */
export interface ToolRuntime extends ToolScheduler {
  /**
   * Adds a tool (replacing none).
   *
   * @throws an {@link InvalidToolDefinitionError} on a duplicate name or bad schema.
   */
  register(tool: AnyToolDefinition): void;
  /** Removes a tool; returns whether it was there. */
  unregister(name: string): boolean;
  /** Changes the sandbox mode for later calls. */
  setSandbox(mode: SandboxMode): void;
  /** Changes the approval policy for later calls (remembered `always` answers stay). */
  setApproval(policy: ApprovalPolicyName | ApprovalPolicy): void;
  /** The sandbox mode in force. */
  readonly sandbox: SandboxMode;
  /** The live hook chains; push hooks onto them. */
  hooks: Required<ToolHooks>;
  /** Which OS sandbox backend confines shell commands (`none` when there is none). */
  sandboxBackend(): SandboxBackendInfo;
}

/** Service key of the sandbox backend in `ToolExecutionContext.services`. */
export const SANDBOX_BACKEND_SERVICE = 'sandboxBackend';

const MODES: readonly SandboxMode[] = ['read-only', 'workspace-write', 'danger-full-access'];

function policyOf(approval: ApprovalPolicyName | ApprovalPolicy): ApprovalPolicy {
  if (typeof approval === 'string') return createApprovalPolicy(approval);
  assertSpecificationVersion('ApprovalPolicy', approval);
  return approval;
}

function approvalTimeoutOf(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value <= 0)
    throw new InvalidRuntimeOptionsError({
      reason: `approvalTimeoutMs must be a positive number of milliseconds, got ${String(value)}`,
    });
  return value;
}

function checkMode(mode: SandboxMode): SandboxMode {
  if (!MODES.includes(mode)) {
    throw new InvalidRuntimeOptionsError({
      reason: `unknown sandbox mode ${JSON.stringify(mode)}; use ${MODES.join(', ')}`,
    });
  }
  return mode;
}

/**
 * Creates a tool runtime: registry, argument validation, hook chains, approval, sandbox policy
 * and the ordered scheduler.
 *
 * @throws an {@link InvalidRuntimeOptionsError} for a relative or missing `cwd`, an unknown policy
 *   or mode.
 * @throws an {@link InvalidToolDefinitionError} for a bad or duplicate tool.
 * @example
 * ```ts
 * const runtime = createToolRuntime({ cwd: '/repo', tools: createWorkspaceTools({ cwd: '/repo' }), approval: 'auto-edit' });
 * const results = await runtime.run(toolCallsOf(message), { onEvent, approve, signal });
 * ```
 */
export function createToolRuntime(options: ToolRuntimeOptions): ToolRuntime {
  if (!isAbsolute(options.cwd))
    throw new InvalidRuntimeOptionsError({
      reason: `cwd must be absolute, got ${JSON.stringify(options.cwd)}`,
    });
  let cwd: string;
  try {
    cwd = realpathSync(options.cwd);
  } catch {
    throw new InvalidRuntimeOptionsError({
      reason: `cwd ${options.cwd} does not exist; create it first`,
    });
  }
  const backend =
    options.sandboxBackend === undefined
      ? detectSandboxSync()
      : (options.sandboxBackend ?? undefined);
  if (backend) assertSpecificationVersion('SandboxBackend', backend);
  const hooks: Required<ToolHooks> = {
    preExecute: [...(options.hooks?.preExecute ?? [])],
    execute: [...(options.hooks?.execute ?? [])],
    postExecute: [...(options.hooks?.postExecute ?? [])],
  };
  const visibility = options.visibility;
  const state: PipelineState = {
    cwd,
    sandbox: checkMode(options.sandbox ?? 'workspace-write'),
    tools: new Map<string, RegisteredTool>(),
    hooks,
    gate: new ApprovalGate(policyOf(options.approval ?? 'ask'), options.rules ?? [], {
      cwd,
      protectedPaths: options.protectedPaths ?? DEFAULT_PROTECTED_PATHS,
      protectedPathWriters: options.protectedPathWriters ?? {},
      timeoutMs: approvalTimeoutOf(options.approvalTimeoutMs),
    }),
    visibility,
    visible: visibility ? (agent, tool) => visibility(agent, tool) : () => true,
    maxResultChars: options.maxResultChars ?? 30_000,
    abortGraceMs: options.abortGraceMs ?? 2_000,
    services: {
      [READ_STATE_SERVICE]: createReadStateTracker(),
      [SANDBOX_BACKEND_SERVICE]: backend ?? null,
      ...options.services,
    },
    pathLocks: new KeyedLock(),
  };
  const maxConcurrency = Math.max(1, options.maxConcurrency ?? 8);
  const register = (tool: AnyToolDefinition): void => {
    const name = tool.spec?.name;
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
      throw new InvalidToolDefinitionError({
        name: String(name),
        reason: 'the name must match [A-Za-z0-9_-]{1,64}',
      });
    }
    if (state.tools.has(name))
      throw new InvalidToolDefinitionError({
        name,
        reason: 'a tool with this name is already registered; unregister it first',
      });
    const schema = toParametersSchema(name, tool.spec.parameters);
    const properties = schema.properties;
    const escalates =
      typeof properties === 'object' &&
      properties !== null &&
      !Array.isArray(properties) &&
      'escalation' in properties;
    state.tools.set(name, { tool, validate: compileArgumentValidator(schema).validate, escalates });
  };
  for (const tool of options.tools ?? []) register(tool);
  const runtime: ToolRuntime = {
    specificationVersion: 1,
    hooks,
    get sandbox() {
      return state.sandbox;
    },
    register,
    unregister: (name) => state.tools.delete(name),
    setSandbox: (mode) => {
      state.sandbox = checkMode(mode);
    },
    setApproval: (policy) => {
      state.gate.policy = policyOf(policy);
    },
    sandboxBackend: () => (backend ?? createNoneSandbox()).info,
    specs: (agent?: string): ToolSpec[] =>
      [...state.tools.values()]
        .filter((entry) => state.visible(agent, entry.tool))
        .map((entry) => entry.tool.spec)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    run: (
      calls: readonly ToolCallPart[],
      runOptions: ToolRunOptions = {},
    ): Promise<ToolResultBody[]> => runBatch(state, calls, runOptions, maxConcurrency),
  };
  return runtime;
}
