import type {
  JsonValue,
  PostExecuteHook,
  PreExecuteHook,
  PreExecuteVerdict,
  ToolHooks,
} from '@spine/protocol';
import { type HookCommandRunner, type HookRunResult, runShellCommand } from './hooks-shell-run.js';

/** The events a person can attach shell commands to. */
export type ShellHookEvent =
  | 'session-start'
  | 'pre-tool-use'
  | 'post-tool-use'
  | 'pre-compact'
  | 'stop';

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

/** Hook commands per event, run in order. */
export type ShellHookConfig = { readonly [E in ShellHookEvent]: readonly ShellHookCommand[] };

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
}

/** Shell hooks as tool-runtime hook chains plus the lifecycle events. */
export interface ShellHooks {
  /** `pre-tool-use` and `post-tool-use` as hook chains for `createToolRuntime({ hooks })`. */
  toolHooks: ToolHooks;
  /** Fires `session-start`, `pre-compact` or `stop` with the payload on stdin. */
  fire(
    event: Exclude<ShellHookEvent, 'pre-tool-use' | 'post-tool-use'>,
    payload: Record<string, JsonValue>,
  ): Promise<void>;
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
 * `post-tool-use` command that exits 2 appends its stderr to the result as feedback.
 *
 * @example
 * ```ts
 * const shell = createShellHooks({
 *   cwd,
 *   hooks: { 'session-start': [], 'pre-tool-use': ['./check.sh'], 'post-tool-use': [], 'pre-compact': [], stop: [] },
 *   sessionId: () => session.id,
 * });
 * const runtime = createToolRuntime({ cwd, tools, hooks: shell.toolHooks });
 * ```
 */
export function createShellHooks(options: ShellHooksOptions): ShellHooks {
  const run = options.run ?? runShellCommand;
  const warn = options.onWarning ?? (() => {});
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
    const result = await run(command, input, {
      cwd: options.cwd,
      timeoutMs,
      ...(signal ? { signal } : {}),
      ...(options.env ? { env: options.env } : {}),
    });
    if (result.timedOut) warn(`${event} hook "${command}" timed out after ${timeoutMs} ms`);
    else if (result.exitCode !== 0 && result.exitCode !== 2) {
      warn(`${event} hook "${command}" exited ${result.exitCode}: ${result.stderr.trim()}`);
    }
    return result;
  };

  const preExecute: PreExecuteHook = async (call, context) => {
    for (const hook of options.hooks['pre-tool-use']) {
      if (!matches(normalize(hook).matcher, call.toolName)) continue;
      const payload = { toolName: call.toolName, toolCallId: call.toolCallId, args: call.args };
      const result = await invoke('pre-tool-use', hook, payload, context.signal);
      const verdict = verdictOf(result);
      if (verdict && verdict.decision !== 'allow') return verdict;
    }
    return undefined;
  };

  const postExecute: PostExecuteHook = async (call, output, context) => {
    let current = output;
    for (const hook of options.hooks['post-tool-use']) {
      if (!matches(normalize(hook).matcher, call.toolName)) continue;
      const payload = {
        toolName: call.toolName,
        toolCallId: call.toolCallId,
        args: call.args,
        result: { content: current.content, isError: current.isError ?? false },
      };
      const result = await invoke('post-tool-use', hook, payload, context.signal);
      if (result.exitCode === 2 && result.stderr.trim()) {
        current = {
          ...current,
          content: `${current.content}\n\n[post-tool-use hook] ${result.stderr.trim()}`,
        };
      }
    }
    return current === output ? undefined : current;
  };

  return {
    toolHooks: {
      preExecute: options.hooks['pre-tool-use'].length ? [preExecute] : [],
      postExecute: options.hooks['post-tool-use'].length ? [postExecute] : [],
    },
    async fire(event, payload) {
      for (const hook of options.hooks[event]) await invoke(event, hook, payload);
    },
  };
}

function verdictOf(result: HookRunResult): PreExecuteVerdict | undefined {
  const stdout = result.stdout.trim();
  if (stdout.startsWith('{')) {
    try {
      const parsed = JSON.parse(stdout) as { decision?: string; reason?: string };
      const reason = parsed.reason ?? 'blocked by a pre-tool-use hook';
      if (parsed.decision === 'deny' || parsed.decision === 'ask')
        return { decision: parsed.decision, reason };
      if (parsed.decision === 'allow') return { decision: 'allow', reason };
    } catch {
      // Not JSON: fall through to the exit code.
    }
  }
  if (result.exitCode === 2) {
    return {
      decision: 'deny',
      reason: result.stderr.trim() || stdout || 'blocked by a pre-tool-use hook',
    };
  }
  return undefined;
}
