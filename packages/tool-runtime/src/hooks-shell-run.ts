import { type ChildProcess, spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import type { SandboxMode } from '@spine/protocol';
import type { SandboxBackend } from './sandbox.js';
import { createShellEnv, withoutShellStartup } from './shell-env.js';

/** What one hook command did. */
export interface HookRunResult {
  /** The exit code (`null` when killed by a signal). */
  exitCode: number | null;
  /** Everything it wrote to stdout. */
  stdout: string;
  /** Everything it wrote to stderr. */
  stderr: string;
  /** True when it was killed at its timeout. */
  timedOut: boolean;
}

/** Options of one {@link HookCommandRunner} call. */
export interface HookRunOptions {
  /** The workspace the command runs in. */
  cwd: string;
  /** Killed after this many ms. */
  timeoutMs: number;
  /** Kills the command when it fires. */
  signal?: AbortSignal;
  /** The command's environment (default: the core variables of `createShellEnv`). */
  env?: NodeJS.ProcessEnv;
}

/** Runs a command line to completion with `input` on stdin. */
export type HookCommandRunner = (
  command: string,
  input: string,
  options: HookRunOptions,
) => Promise<HookRunResult>;

/**
 * The unconfined runner: `sh -c command` with the given environment (default: the core
 * variables; never `ENV`/`BASH_ENV`), the event JSON on stdin, killed at the timeout.
 */
export const runShellCommand: HookCommandRunner = async (command, input, options) =>
  collect(
    spawn('sh', ['-c', command], {
      cwd: options.cwd,
      env: environmentOf(options),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    }),
    input,
    options,
  );

/** Options of {@link createSandboxedHookRunner}. */
export interface SandboxedHookRunnerOptions {
  /** The OS sandbox of the agent's shell commands (`null`: none). */
  backend: SandboxBackend | null | undefined;
  /** The sandbox mode in force when a hook runs (the runtime's, which `/sandbox` may change). */
  mode: () => SandboxMode;
}

/**
 * A runner that confines hooks like the agent's shell commands: each command runs through the
 * backend in the mode in force, with the workspace as its root. When the backend does not enforce
 * that mode (no bubblewrap, or `danger-full-access`), it runs unconfined, as shell commands do.
 *
 * @example
 * ```ts
 * const run = createSandboxedHookRunner({ backend: await detectSandbox(), mode: () => runtime.sandbox });
 * const hooks = createShellHooks({ cwd, hooks: config, sessionId: () => session.id, run });
 * ```
 */
export function createSandboxedHookRunner(options: SandboxedHookRunnerOptions): HookCommandRunner {
  return async (command, input, runOptions) => {
    const mode = options.mode();
    const backend = options.backend;
    if (!backend?.info.enforces.includes(mode)) return runShellCommand(command, input, runOptions);
    const workspace = realpathSync(runOptions.cwd);
    const wrapped = backend.wrap({ command, cwd: workspace, workspace, mode });
    return collect(
      spawn(wrapped.file, wrapped.args, {
        cwd: workspace,
        env: environmentOf(runOptions),
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      }),
      input,
      runOptions,
    );
  };
}

function environmentOf(options: HookRunOptions): NodeJS.ProcessEnv {
  return withoutShellStartup(options.env ?? createShellEnv(process.env));
}

function collect(
  child: ChildProcess,
  input: string,
  options: HookRunOptions,
): Promise<HookRunResult> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    // The command leads its own process group: killing the group also stops what it started
    // (a `sleep` holding stdout open would otherwise outlive the timeout).
    const kill = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const onAbort = (): void => kill();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.stdin?.on('error', () => {});
    child.stdin?.end(input);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ exitCode, stdout, stderr, timedOut });
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ exitCode: 127, stdout, stderr: String(error), timedOut });
    });
  });
}
