import type { SandboxMode, ToolDefinition, ToolExecutionContext } from '@spine/protocol';
import { type ZodType, z } from 'zod';
import { defineTool } from './define-tool.js';
import { SandboxUnavailableError } from './errors.js';
import { startBackgroundJob } from './internal/bash-background.js';
import { runProcess } from './internal/run-process.js';
import { failureOutput, toolSupport } from './internal/tool-support.js';
import type { JobManager } from './jobs.js';
import { createNoneSandbox, type SandboxBackend, type SandboxCommand } from './sandbox.js';
import { detectSandbox } from './sandbox-bwrap.js';
import { createShellEnv, withoutShellStartup } from './shell-env.js';
import { TOOL_CALL_ENV, toolCallTag } from './tool-call-processes.js';
import type { WorkspaceToolOptions } from './types.js';

/** Options of {@link createBashTool}. */
export interface BashToolOptions extends WorkspaceToolOptions {
  /** OS sandbox: a backend, `null` for none, omitted to use the runtime's (or detect bubblewrap). */
  sandboxBackend?: SandboxBackend | null;
  /** Default per-command timeout. Default 120,000 ms. */
  defaultTimeoutMs?: number;
  /** Largest timeout a call may ask for. Default 600,000 ms. */
  maxTimeoutMs?: number;
  /** Output kept per command (head and tail). Default 30,000 characters. */
  maxOutputChars?: number;
  /**
   * Environment of commands. Default: `createShellEnv(process.env)` as it is when the tool is
   * created: only the core variables (PATH, HOME, USER, LANG, LC_*, TERM, TZ, TMPDIR, SHELL), so a
   * command cannot copy a key or token into the workspace or its output for the model to read.
   * Whatever is given, `BASH_ENV`, `ENV` and exported shell functions are dropped.
   */
  env?: NodeJS.ProcessEnv;
  /**
   * Network of commands that were not granted full network access: `'off'` (default) or
   * `{ domains: [...] }`, only those hosts through the backend's filtering proxy (bubblewrap).
   * Full network (`on`) is only ever granted per command by a person, through an escalation.
   */
  network?: 'off' | { domains: readonly string[] };
  /**
   * Background jobs of the session: with a manager, `bash` takes `run_in_background` and starts
   * the command as a job in the same sandbox (see `createJobTools` for reading and stopping it).
   */
  jobs?: JobManager;
  /**
   * The session this tool serves. With it, each foreground command the tool spawns itself (every
   * unsandboxed one) carries `SPINE_TOOL_CALL=<session id>/<call id>` ({@link TOOL_CALL_ENV}) in
   * its environment, so a resume after a crash finds it if it still runs and stops it.
   */
  sessionId?: () => string;
}

const BashArguments = z.object({
  command: z.string().min(1).describe('Shell command line, run with bash -c.'),
  workdir: z
    .string()
    .optional()
    .describe('Working directory, relative to the workspace root. Default: the root.'),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Time limit in ms; the process group is killed when it passes.'),
  escalation: z
    .object({
      justification: z
        .string()
        .min(1)
        .describe('Why the command needs more than the sandbox allows.'),
      permissions: z.object({
        network: z.boolean().optional().describe('Allow network access.'),
        fullAccess: z
          .boolean()
          .optional()
          .describe('Run without the sandbox (danger-full-access).'),
      }),
    })
    .optional()
    .describe(
      'Ask the user for extra sandbox permissions for this one command. Only use when the command failed because of the sandbox.',
    ),
});
const BackgroundArguments = BashArguments.extend({
  run_in_background: z
    .boolean()
    .optional()
    .describe(
      'Start the command as a background job (a server, a watcher, a long test run) and return at once with its id and first lines; read more with job_output, stop it with job_kill.',
    ),
});
/** Arguments of the `bash` tool. */
export interface BashToolArguments {
  /** Shell command line, run with `bash -c`. */
  command: string;
  /** Working directory, relative to the workspace root. */
  workdir?: string;
  /** Time limit in ms; the process group is killed when it passes. */
  timeoutMs?: number;
  /** Start the command as a background job (only when the tool has a job manager). */
  run_in_background?: boolean;
  /** Extra sandbox permissions for this one command; only a person's approval grants them. */
  escalation?: {
    /** Why the command needs them. */
    justification: string;
    /** What it asks for. */
    permissions: {
      /** Network access. */
      network?: boolean;
      /** No sandbox at all (danger-full-access). */
      fullAccess?: boolean;
    };
  };
}

async function backendFor(
  option: SandboxBackend | null | undefined,
  context: ToolExecutionContext,
): Promise<SandboxBackend | undefined> {
  if (option !== undefined) return option ?? undefined;
  const service = context.services?.sandboxBackend;
  if (service === null) return undefined;
  if (typeof service === 'object' && typeof (service as SandboxBackend).wrap === 'function')
    return service as SandboxBackend;
  return detectSandbox();
}

/**
 * Creates the `bash` tool: runs a command under the OS sandbox for the current mode (bubblewrap on
 * Linux), with streaming output captured within a budget, a timeout that kills the whole process
 * group, and the exit code and enforcing backend in the result. Refuses `read-only` and
 * `workspace-write` commands when no OS sandbox is available; never runs them unconfined.
 */
export function createBashTool(options: BashToolOptions): ToolDefinition<BashToolArguments> {
  const support = toolSupport(options);
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 120_000;
  const maxTimeoutMs = options.maxTimeoutMs ?? 600_000;
  const maxOutputChars = options.maxOutputChars ?? 30_000;
  // One object for the tool's life: pre-started sandboxes are kept per environment object.
  const env = withoutShellStartup(options.env ?? createShellEnv(process.env));
  return defineTool({
    name: 'bash',
    description: `Run a shell command in the workspace, inside the sandbox (read-only or workspace-write: only the workspace and a private /tmp are writable; ${
      options.network && options.network !== 'off' && options.network.domains.length > 0
        ? `network only to ${options.network.domains.join(', ')} through an HTTP(S) proxy set in HTTP_PROXY/HTTPS_PROXY`
        : 'no network'
    }). Returns combined stdout and stderr and the exit code.${
      options.jobs
        ? ' With run_in_background: true it starts a background job in the same sandbox and returns at once with its id and first lines.'
        : ''
    }`,
    parameters: (options.jobs ? BackgroundArguments : BashArguments) as ZodType<BashToolArguments>,
    permissions: { executes: true },
    execute: async (args, context) => {
      try {
        const granted = context.grantedPermissions ?? {};
        const mode: SandboxMode =
          granted.fullAccess === true ? 'danger-full-access' : context.sandbox;
        const backend =
          mode === 'danger-full-access'
            ? createNoneSandbox()
            : await backendFor(options.sandboxBackend, context);
        if (!backend?.info.enforces.includes(mode)) {
          throw new SandboxUnavailableError({
            mode,
            detail: backend
              ? `backend ${backend.info.name} cannot enforce it`
              : 'bubblewrap (bwrap) was not found or cannot create namespaces here',
          });
        }
        const workspace = await support.fs.realpath(support.cwd);
        const workdir = await support.resolve(args.workdir ?? '.', 'directory');
        if (!workdir.exists)
          return { content: `Working directory not found: ${args.workdir}.`, isError: true };
        if (args.command.includes('\0')) {
          return { content: 'The command contains a NUL character; remove it.', isError: true };
        }
        const confined: SandboxCommand = {
          command: args.command,
          cwd: workdir.absolute,
          workspace,
          mode,
          network: granted.network === true,
        };
        if (options.network && options.network !== 'off' && options.network.domains.length > 0)
          confined.networkDomains = options.network.domains;
        const jobs = options.jobs;
        // While jobs run, commands share one loopback-only network namespace (a server a job
        // started on 127.0.0.1 is reachable); granted or domain network keeps its own.
        if (jobs && (args.run_in_background === true || jobs.running().length > 0)) {
          const shared = await jobs.sharedNetwork(backend);
          if (shared) confined.sharedNetwork = shared;
        }
        if (args.run_in_background === true && jobs) {
          return await startBackgroundJob(jobs, {
            confined,
            backend,
            env,
            meta: { sandbox: backend.info.name, sandboxMode: mode, cwd: workdir.relative },
          });
        }
        const wrapped = backend.wrap(confined);
        const timeoutMs = Math.min(args.timeoutMs ?? defaultTimeoutMs, maxTimeoutMs);
        const commandEnv = taggedEnv(env, backend, options.sessionId, context.callId);
        const result = await runProcess({
          start: backend.spawn ? () => backend.spawn!(confined, { env: commandEnv }) : undefined,
          file: wrapped.file,
          args: wrapped.args,
          cwd: workdir.absolute,
          env: commandEnv,
          signal: context.signal,
          timeoutMs,
          maxOutputChars,
          onOutput: context.onProgress
            ? (chunk) => context.onProgress?.({ message: chunk })
            : undefined,
        });
        const notes: string[] = [];
        if (result.timedOut)
          notes.push(`[timed out after ${timeoutMs} ms; the process group was killed]`);
        else if (result.aborted) notes.push('[aborted; the process group was killed]');
        else if (result.exitCode !== 0)
          notes.push(`[exit code ${result.exitCode ?? `signal ${result.signal}`}]`);
        if (
          result.exitCode !== 0 &&
          mode !== 'danger-full-access' &&
          SANDBOX_SYMPTOM.test(result.output)
        ) {
          notes.push(
            `[the ${mode} sandbox (${backend.info.name}) may have blocked this: ${mode === 'read-only' ? 'nothing is writable' : 'only the workspace and /tmp are writable'}${granted.network === true ? '' : ' and there is no network'}. If the command truly needs more, call bash again with an escalation and a justification; the user decides.]`,
          );
        }
        const body = result.output.length > 0 ? result.output : '(no output)';
        const meta: Record<string, string | number | boolean> = {
          sandbox: backend.info.name,
          sandboxMode: mode,
          contentType: 'text/plain',
          cwd: workdir.relative,
          network:
            granted.network === true
              ? 'on'
              : confined.networkDomains && mode !== 'danger-full-access'
                ? 'domains'
                : mode === 'danger-full-access'
                  ? 'host'
                  : 'off',
        };
        if (result.exitCode !== null) meta.exitCode = result.exitCode;
        if (result.signal) meta.signal = result.signal;
        if (result.truncated) {
          meta.truncated = true;
          meta.originalLength = result.originalLength;
        }
        return {
          content: notes.length > 0 ? `${body}\n${notes.join('\n')}` : body,
          isError: result.timedOut || result.aborted || result.exitCode !== 0,
          meta,
        };
      } catch (error) {
        return failureOutput(error);
      }
    },
  });
}

/**
 * The environment of a foreground command, tagged with its session and call. A command under
 * bubblewrap dies with Spine (`--die-with-parent`, PID namespace); an unsandboxed one is reparented
 * and runs on, so a resume finds it by this tag (`stopToolCallProcesses`) instead of taking the
 * workspace's state for its final outcome. Every directly spawned command is tagged (harmless in a
 * sandbox, and right for a backend that does not end its commands with Spine); a backend that
 * starts commands itself (`spawn`, pre-started sandboxes kept per environment object) keeps `env`.
 */
function taggedEnv(
  env: NodeJS.ProcessEnv,
  backend: SandboxBackend,
  sessionId: (() => string) | undefined,
  callId: string,
): NodeJS.ProcessEnv {
  if (!sessionId || backend.spawn) return env;
  return { ...env, [TOOL_CALL_ENV]: toolCallTag(sessionId(), callId) };
}

// Messages by which a command shows it ran into the sandbox rather than failing on its own.
const SANDBOX_SYMPTOM =
  /Read-only file system|Operation not permitted|Network is unreachable|Could not resolve host|Temporary failure in name resolution|Cannot assign requested address/;
