import type { SandboxMode } from '@spine/protocol';

/** A process to start: what {@link McpCommandWrapper} receives and returns. */
export interface McpCommand {
  /** The program. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** The variables the configuration names (the SDK adds a small safe set: HOME, PATH, …). */
  env: Record<string, string>;
}

/** What a wrapper knows about the server it wraps. */
export interface McpCommandContext {
  /** The server's configured name. */
  server: string;
  /** The sandbox the server runs in (`workspace-write` unless configured). */
  sandbox: SandboxMode;
  /** Whether the configuration lets the server reach the network. */
  network: boolean;
  /** The working directory of the process (absolute). */
  cwd: string;
}

/**
 * Turns a server's command into the command that actually starts it, for example under
 * bubblewrap. `@spine/mcp` does not depend on a sandbox; the application injects one (the
 * reference CLI builds it from `@spine/tool-runtime`'s `bwrapArguments`). A wrapper is not called
 * for `danger-full-access`.
 */
export type McpCommandWrapper = (command: McpCommand, context: McpCommandContext) => McpCommand;
