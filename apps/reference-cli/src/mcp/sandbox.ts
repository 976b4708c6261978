import type { McpCommandWrapper } from '@spine/mcp';
import type { SandboxBackend } from '@spine/tool-runtime';

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
    });
    return { command: wrapped.file, args: wrapped.args, env: command.env };
  };
}
