import { spawn } from 'node:child_process';
import type {
  JsonValue,
  PostExecuteHook,
  PreExecuteHook,
  PreExecuteVerdict,
  ToolHooks,
} from '@spine/protocol';
import type { HookCommand, HookEvent, SpineConfig } from './config/schema.js';

/** What one hook command did. */
export interface HookRunResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs a command line to completion with `input` on stdin. */
export type HookCommandRunner = (
  command: string,
  input: string,
  options: { cwd: string; timeoutMs: number; signal?: AbortSignal; env?: NodeJS.ProcessEnv },
) => Promise<HookRunResult>;

/** Options of {@link createShellHooks}. */
export interface ShellHooksOptions {
  /** The workspace; hooks run there. */
  cwd: string;
  /** Hook commands per event, from the configuration. */
  hooks: SpineConfig['hooks'];
  /** The session id, passed to every hook. */
  sessionId: () => string;
  /** Reports a hook that failed without blocking (non-zero exit other than 2, timeout). */
  onWarning?: (message: string) => void;
  /** Runs commands; default: `sh -c` in the workspace. A sandboxing runner can be passed. */
  run?: HookCommandRunner;
  /**
   * Environment of hook commands. Default: `createShellEnv(process.env)` from tool-runtime (the
   * core variables only), so a hook never sees the model key or other credentials.
   */
  env?: NodeJS.ProcessEnv;
}

/** User hooks as tool-runtime hook chains plus the lifecycle events. */
export interface ShellHooks {
  /** `pre-tool-use` and `post-tool-use` as tool-runtime hook chains. */
  toolHooks: ToolHooks;
  /** Fires `session-start`, `pre-compact` or `stop` with the payload on stdin. */
  fire(
    event: Exclude<HookEvent, 'pre-tool-use' | 'post-tool-use'>,
    payload: Record<string, JsonValue>,
  ): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The default runner: `sh -c command` with the given environment (default: the core variables;
 * never `ENV`/`BASH_ENV`), event JSON on stdin, killed at the timeout.
 */
export const runShellCommand: HookCommandRunner = async (command, input, options) => {
  const { createShellEnv, withoutShellStartup } = await import('@spine/tool-runtime');
  const env = withoutShellStartup(options.env ?? createShellEnv(process.env));
  return spawnHook(command, input, options, env);
};

function spawnHook(
  command: string,
  input: string,
  options: { cwd: string; timeoutMs: number; signal?: AbortSignal },
  env: NodeJS.ProcessEnv,
): Promise<HookRunResult> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], {
      cwd: options.cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    const onAbort = (): void => {
      child.kill('SIGKILL');
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ exitCode, stdout, stderr, timedOut });
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ exitCode: 127, stdout, stderr: String(error), timedOut });
    });
  });
}

function normalize(hook: HookCommand): { command: string; timeoutMs: number; matcher: string } {
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
 * Turns the configured shell commands into hooks. Contract of a `pre-tool-use` command: exit 0
 * allows (no opinion), exit 2 blocks the call with stderr (or stdout) as the reason the model
 * sees, and stdout `{"decision":"deny"|"ask"|"allow","reason":"…"}` decides explicitly. A
 * `post-tool-use` command that exits 2 appends its stderr to the result as feedback.
 */
export function createShellHooks(options: ShellHooksOptions): ShellHooks {
  const run = options.run ?? runShellCommand;
  const warn = options.onWarning ?? (() => {});
  const invoke = async (
    event: HookEvent,
    hook: HookCommand,
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
