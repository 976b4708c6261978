import type { ToolPermissions } from '@spine/protocol';
import type { McpServerConfig } from './config.js';

/** The hints an MCP server attaches to a tool (untrusted: a server may lie). */
export interface McpToolAnnotations {
  /** The tool does not change its environment. */
  readOnlyHint?: boolean;
  /** The tool may make destructive updates. */
  destructiveHint?: boolean;
  /** Repeating a call with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** The tool reaches an open world (the internet, other people). */
  openWorldHint?: boolean;
}

/** How Spine treats one MCP tool: its permissions for approval, and whether it may run in parallel. */
export interface McpToolPolicy {
  /** Treated as read-only (from the override, or the hint of a trusted server). */
  readOnly: boolean;
  /** Whether the read-only verdict came from the user's configuration or the server's hint. */
  readOnlyFrom: 'tool-config' | 'server-config' | 'annotation' | 'default';
  /** What the approval layer sees: empty for a read-only tool, `executes` otherwise. */
  permissions: ToolPermissions;
  /** Read-only tools may run in parallel with other safe calls. */
  isConcurrencySafe: boolean;
}

/**
 * Decides one tool's approval permissions and concurrency. The user's configuration wins: a
 * per-tool `readOnly`, then the server's `readOnly`; otherwise the server's `readOnlyHint` counts
 * only when the server is `trust`ed (an untrusted server's tools are side-effecting: they ask under
 * `ask` and `auto-edit`). A tool treated as read-only has no permissions (it runs without asking
 * and in parallel); any other tool `executes` (and reaches the `network` when it says it reaches an
 * open world, or when the server is remote).
 */
export function toolPolicy(
  tool: string,
  annotations: McpToolAnnotations | undefined,
  config: McpServerConfig,
): McpToolPolicy {
  const toolOverride = config.tools?.[tool]?.readOnly;
  let readOnly = false;
  let readOnlyFrom: McpToolPolicy['readOnlyFrom'] = 'default';
  if (toolOverride !== undefined) {
    readOnly = toolOverride;
    readOnlyFrom = 'tool-config';
  } else if (config.readOnly !== undefined) {
    readOnly = config.readOnly;
    readOnlyFrom = 'server-config';
  } else if (config.trust === true && annotations?.readOnlyHint === true) {
    readOnly = true;
    readOnlyFrom = 'annotation';
  }
  const remote = config.type === 'http' || config.type === 'sse';
  const permissions: ToolPermissions = readOnly
    ? {}
    : annotations?.openWorldHint === true || remote
      ? { executes: true, network: true }
      : { executes: true };
  return { readOnly, readOnlyFrom, permissions, isConcurrencySafe: readOnly };
}
