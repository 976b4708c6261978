import type { AnyToolDefinition, ToolPermissions } from '@spine/protocol';

/** The hints the server publishes for one of Spine's tools (MCP `ToolAnnotations`). */
export interface ServedToolAnnotations {
  /** The tool does not change its environment. */
  readOnlyHint: boolean;
  /** The tool may overwrite or delete (meaningful when not read-only). */
  destructiveHint: boolean;
  /** Repeating a call with the same arguments has no further effect. */
  idempotentHint: boolean;
  /** The tool reaches beyond the workspace (the network). */
  openWorldHint: boolean;
}

/**
 * The honest hints of a tool, derived from the permissions the approval layer sees: a tool that
 * writes files or runs commands is neither read-only nor assumed harmless; a tool that reaches the
 * network is open-world. A tool whose definition is unknown gets the most cautious hints.
 */
export function annotationsFor(tool: AnyToolDefinition | undefined): ServedToolAnnotations {
  if (!tool)
    return {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    };
  const permissions: ToolPermissions = tool.permissions ?? {};
  const changes = permissions.writesFiles === true || permissions.executes === true;
  return {
    readOnlyHint: !changes,
    destructiveHint: changes,
    idempotentHint: !changes,
    openWorldHint: permissions.network === true,
  };
}
