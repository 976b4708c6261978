import type {
  HookRunBody,
  JsonValue,
  PostExecuteHook,
  PreExecuteHook,
  ToolHooks,
} from '@spine/protocol';
import {
  hookRunRecord,
  type PermissionHookDecision,
  type PromptHookDecision,
  permissionDecisionOf,
  promptDecisionOf,
  toolVerdictOf,
} from './hooks-shell-decide.js';
import { type HookCommandRunner, type HookRunResult, runShellCommand } from './hooks-shell-run.js';

/** The events a person can attach shell commands to. */
export type ShellHookEvent =
  | 'session-start'
  | 'pre-tool-use'
  | 'post-tool-use'
  | 'pre-compact'
  | 'stop'
  | 'user-prompt-submit'
  | 'permission-request'
  | 'post-compact'
  | 'subagent-start'
  | 'subagent-stop'
  | 'session-end'
  | 'notification';

/** The events whose commands decide something (see {@link ShellHooks.decide}). */
export type DecidingHookEvent = 'user-prompt-submit' | 'permission-request';

/** Events fired for their side effects only (see {@link ShellHooks.fire}). */
export type LifecycleHookEvent = Exclude<
  ShellHookEvent,
  'pre-tool-use' | 'post-tool-use' | DecidingHookEvent
>;

/**
 * A hook command: a shell command line, or an object with a per-hook timeout (default 30 s) and,
 * for tool hooks, a matcher (`*`, a tool name, or names joined by `|`).
 */
export type ShellHookCommand =
  | string
  | {
      /** The shell command line. */
      command: string;
      /** Killed after this many ms (default 30,000). */
      timeoutMs?: number | undefined;
      /** Tool hooks only: `*` (default), a tool name, or names joined by `|`. */
      matcher?: string | undefined;
    };

/** Hook commands per event, run in order (an event left out has none). */
export type ShellHookConfig = {
  readonly [E in ShellHookEvent]?: readonly ShellHookCommand[] | undefined;
};

/** Options of {@link createShellHooks}. */
export interface ShellHooksOptions {
  /** The workspace; hooks run there. */
  cwd: string;
  /** Hook commands per event. */
  hooks: ShellHookConfig;
  /** The session id, passed to every hook. */
  sessionId: () => string;
  /** Reports a hook that failed without blocking (non-zero exit other than 2, timeout). */
  onWarning?: (message: string) => void;
  /**
   * Runs commands; default {@link runShellCommand} (`sh -c` in the workspace, unconfined).
   * {@link createSandboxedHookRunner} confines them like the agent's shell commands.
   */
  run?: HookCommandRunner;
  /**
   * Environment of hook commands. Default: `createShellEnv(process.env)` (the core variables
   * only), so a hook never sees the model key or other credentials.
   */
  env?: NodeJS.ProcessEnv;
  /** Told of every command run (the harness records it as `hook/run`). */
  onRun?: (record: HookRunBody) => void;
}

/** Shell hooks as tool-runtime hook chains plus the lifecycle events. */
export interface ShellHooks {
  /** `pre-tool-use` and `post-tool-use` as hook chains for `createToolRuntime({ hooks })`. */
  toolHooks: ToolHooks;
  /** True when commands are attached to `event`. */
  has(event: ShellHookEvent): boolean;
  /** Fires a lifecycle event with the payload on stdin; failures are warnings. */
  fire(event: LifecycleHookEvent, payload: Record<string, JsonValue>): Promise<void>;
  /**
   * Runs the `user-prompt-submit` commands: the first block wins, rewrites chain (each command
   * sees the prompt the previous one produced).
   */
  decide(
    event: 'user-prompt-submit',
    payload: { prompt: string },
  ): Promise<PromptHookDecision | undefined>;
  /**
   * Runs the `permission-request` commands: the first deny wins (a failing or hanging command
   * denies), else allow when one allowed, else `undefined` (ask the person).
   */
  decide(
    event: 'permission-request',
    payload: Record<string, JsonValue>,
  ): Promise<PermissionHookDecision | undefined>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

function normalize(hook: ShellHookCommand): {
  command: string;
  timeoutMs: number;
  matcher: string;
} {
  if (typeof hook === 'string')
    return { command: hook, timeoutMs: DEFAULT_TIMEOUT_MS, matcher: '*' };
  return {
    command: hook.command,
    timeoutMs: hook.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    matcher: hook.matcher ?? '*',
  };
}

function matches(matcher: string, toolName: string): boolean {
  return matcher === '*' || matcher.split('|').includes(toolName);
}

/**
 * Turns shell commands into hooks. Every command gets the event as JSON on stdin (`event`,
 * `sessionId`, `cwd` and the event's payload). Contract of a `pre-tool-use` command: exit 0
 * allows (no opinion), exit 2 blocks the call with stderr (or stdout) as the reason the model
 * sees, and stdout `{"decision":"deny"|"ask"|"allow","reason":"…"}` decides explicitly. A
 * `post-tool-use` command that exits 2 appends its stderr to the result as feedback. A
 * `user-prompt-submit` command blocks the prompt with exit 2 (or `{"decision":"block"}`) and
 * replaces it with `{"prompt":"…"}`; a `permission-request` command allows or denies with
 * `{"decision":"allow"|"deny"}` before a person is asked, denies with exit 2, and denies when it
 * fails or times out (fails closed). The schema of each event's stdin is `HookInputSchema` in
 * `@spine/protocol`; every run is reported to `onRun`.
 *
 * @example
 * ```ts
 * const shell = createShellHooks({
 *   cwd,
 *   hooks: { 'pre-tool-use': ['./check.sh'], 'permission-request': ['./policy.sh'] },
 *   sessionId: () => session.id,
 * });
 * const runtime = createToolRuntime({ cwd, tools, hooks: shell.toolHooks });
 * ```
 */
export function createShellHooks(options: ShellHooksOptions): ShellHooks {
  const run = options.run ?? runShellCommand;
  const warn = options.onWarning ?? (() => {});
  const durations = new WeakMap<HookRunResult, number>();
  const listOf = (event: ShellHookEvent): readonly ShellHookCommand[] => options.hooks[event] ?? [];
  const report = (
    event: ShellHookEvent,
    hook: ShellHookCommand,
    result: HookRunResult,
    decision: HookRunBody['decision'],
    reason?: string,
  ): void => {
    if (!options.onRun) return;
    const { command } = normalize(hook);
    const durationMs = durations.get(result) ?? 0;
    options.onRun(
      hookRunRecord(
        { event, command, durationMs, decision, ...(reason === undefined ? {} : { reason }) },
        result,
      ),
    );
  };
  const invoke = async (
    event: ShellHookEvent,
    hook: ShellHookCommand,
    payload: Record<string, unknown>,
    signal?: AbortSignal,
  ) => {
    const { command, timeoutMs } = normalize(hook);
    const input = JSON.stringify({
      event,
      sessionId: options.sessionId(),
      cwd: options.cwd,
      ...payload,
    });
    const started = performance.now();
    const result = await run(command, input, {
      cwd: options.cwd,
      timeoutMs,
      ...(signal ? { signal } : {}),
      ...(options.env ? { env: options.env } : {}),
    }).catch(
      (error: unknown): HookRunResult => ({
        exitCode: 127,
        stdout: '',
        stderr: String(error),
        timedOut: false,
      }),
    );
    durations.set(result, performance.now() - started);
    if (result.timedOut) warn(`${event} hook "${command}" timed out after ${timeoutMs} ms`);
    else if (result.exitCode !== 0 && result.exitCode !== 2) {
      warn(`${event} hook "${command}" exited ${result.exitCode}: ${result.stderr.trim()}`);
    }
    return result;
  };

  const preExecute: PreExecuteHook = async (call, context) => {
    for (const hook of listOf('pre-tool-use')) {
      if (!matches(normalize(hook).matcher, call.toolName)) continue;
      const payload = { toolName: call.toolName, toolCallId: call.toolCallId, args: call.args };
      const result = await invoke('pre-tool-use', hook, payload, context.signal);
      const verdict = toolVerdictOf(result);
      report('pre-tool-use', hook, result, verdict?.decision ?? 'none', verdict?.reason);
      if (verdict && verdict.decision !== 'allow') return verdict;
    }
    return undefined;
  };

  const postExecute: PostExecuteHook = async (call, output, context) => {
    let current = output;
    for (const hook of listOf('post-tool-use')) {
      if (!matches(normalize(hook).matcher, call.toolName)) continue;
      const payload = {
        toolName: call.toolName,
        toolCallId: call.toolCallId,
        args: call.args,
        result: { content: current.content, isError: current.isError ?? false },
      };
      const result = await invoke('post-tool-use', hook, payload, context.signal);
      const feedback = result.exitCode === 2 && result.stderr.trim() !== '';
      report('post-tool-use', hook, result, feedback ? 'feedback' : 'none');
      if (feedback) {
        current = {
          ...current,
          content: `${current.content}\n\n[post-tool-use hook] ${result.stderr.trim()}`,
        };
      }
    }
    return current === output ? undefined : current;
  };

  const decidePrompt = async (prompt: string): Promise<PromptHookDecision | undefined> => {
    let current = prompt;
    for (const hook of listOf('user-prompt-submit')) {
      const result = await invoke('user-prompt-submit', hook, { prompt: current });
      const decision = promptDecisionOf(result);
      report(
        'user-prompt-submit',
        hook,
        result,
        decision?.decision ?? 'none',
        decision?.decision === 'block' ? decision.reason : undefined,
      );
      if (decision?.decision === 'block') return decision;
      if (decision?.decision === 'rewrite') current = decision.prompt;
    }
    return current === prompt ? undefined : { decision: 'rewrite', prompt: current };
  };

  const decidePermission = async (
    payload: Record<string, JsonValue>,
  ): Promise<PermissionHookDecision | undefined> => {
    let allowed: PermissionHookDecision | undefined;
    for (const hook of listOf('permission-request')) {
      const result = await invoke('permission-request', hook, payload);
      const decision = permissionDecisionOf(result);
      report('permission-request', hook, result, decision?.decision ?? 'none', decision?.reason);
      if (decision?.decision === 'deny') return decision;
      if (decision) allowed = decision;
    }
    return allowed;
  };

  return {
    toolHooks: {
      preExecute: listOf('pre-tool-use').length ? [preExecute] : [],
      postExecute: listOf('post-tool-use').length ? [postExecute] : [],
    },
    has: (event) => listOf(event).length > 0,
    async fire(event, payload) {
      for (const hook of listOf(event)) {
        const result = await invoke(event, hook, payload);
        report(event, hook, result, 'none');
      }
    },
    decide: ((event: DecidingHookEvent, payload: Record<string, JsonValue>) =>
      event === 'user-prompt-submit'
        ? decidePrompt(String(payload.prompt ?? ''))
        : decidePermission(payload)) as ShellHooks['decide'],
  };
}
