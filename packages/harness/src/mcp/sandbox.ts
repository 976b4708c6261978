import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { McpCommandWrapper } from '@spine/mcp';
import type { SandboxBackend } from '@spine/tool-runtime';

/** True when `path` is `root` or inside it. */
const within = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * What a server's command line needs shown read-only because the sandbox's private `/tmp` hides
 * it: for each absolute command or argument that exists under `/tmp` outside the workspace, the
 * highest folder below `/tmp` holding a `node_modules` (the project it was installed into, so its
 * dependencies resolve), else its own folder.
 */
export function hiddenProgramRoots(words: readonly string[], workspace: string): string[] {
  const roots = new Set<string>();
  for (const word of words) {
    if (!isAbsolute(word) || !within('/tmp', word) || word === '/tmp') continue;
    if (within(workspace, word) || !existsSync(word)) continue;
    let root = statSync(word).isDirectory() ? word : dirname(word);
    for (let dir = root; dir !== '/tmp' && dir.startsWith(`/tmp${sep}`); dir = dirname(dir)) {
      if (existsSync(join(dir, 'node_modules'))) root = dir;
    }
    roots.add(root);
  }
  return [...roots];
}

/** Quotes one word for `bash -c` (single quotes; embedded quotes closed and escaped). */
export function shellQuote(word: string): string {
  return /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command wrapper of MCP stdio servers: the server runs under the same OS sandbox backend as
 * the agent's shell commands (bubblewrap: every namespace unshared, the workspace writable in
 * `workspace-write`, protected paths read-only, seccomp, network only when the server's
 * configuration says `network: true`). `danger-full-access` servers are not wrapped (the
 * manager never calls the wrapper for them). Without an OS sandbox there is nothing to wrap with:
 * the caller then refuses to start sandboxed servers rather than run them unconfined.
 */
export function createMcpSandboxWrapper(options: {
  backend: SandboxBackend;
  workspace: string;
}): McpCommandWrapper {
  return (command, context) => {
    const line = ['exec', ...[command.command, ...command.args].map(shellQuote)].join(' ');
    const wrapped = options.backend.wrap({
      command: line,
      cwd: context.cwd,
      workspace: options.workspace,
      mode: context.sandbox,
      network: context.network,
      readOnlyRoots: hiddenProgramRoots([command.command, ...command.args], options.workspace),
    });
    return { command: wrapped.file, args: wrapped.args, env: command.env };
  };
}

/** A sandbox mode, from narrowest to widest. */
export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access';

const WIDTH: Record<SandboxMode, number> = {
  'read-only': 0,
  'workspace-write': 1,
  'danger-full-access': 2,
};

/**
 * The sandbox a stdio server runs under: its own `sandbox` key (default `workspace-write`), never
 * wider than the session's. So an entry (a project's `.mcp.json` is written by whoever controls
 * the repository) asking for `danger-full-access` gets it only when the person started the session
 * with `--sandbox danger-full-access`, and under a `read-only` session no server writes.
 */
export function serverSandbox(
  requested: SandboxMode | undefined,
  session: SandboxMode,
): SandboxMode {
  const wanted = requested ?? 'workspace-write';
  return WIDTH[wanted] <= WIDTH[session] ? wanted : session;
}

/**
 * The entries with each stdio server's `sandbox` set to what it will run under
 * ({@link serverSandbox}), and a note for each entry that asked for more than it got.
 */
export function capServerSandboxes<T extends { type?: string; sandbox?: SandboxMode }>(
  servers: Record<string, T>,
  session: SandboxMode,
): { servers: Record<string, T>; narrowed: string[] } {
  const out: Record<string, T> = {};
  const narrowed: string[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    if (entry.type !== undefined && entry.type !== 'stdio') {
      out[name] = entry;
      continue;
    }
    const sandbox = serverSandbox(entry.sandbox, session);
    if (entry.sandbox !== undefined && entry.sandbox !== sandbox)
      narrowed.push(
        `MCP ${name}: asks for sandbox ${entry.sandbox}; runs under ${sandbox}, the session's sandbox (only --sandbox ${entry.sandbox} allows more)`,
      );
    out[name] = { ...entry, sandbox };
  }
  return { servers: out, narrowed };
}
