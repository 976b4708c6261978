import type { AnyToolDefinition, SessionEvent, ToolResultBody, ToolSpec } from '@spine/protocol';

/**
 * The MCP tools of a recorded session, answering every call with the result the recording holds
 * for the same call id: a rerun never starts a server, and history is never rebuilt by calling a
 * server again. A call the recording has no result for is an error result saying so. For a rerun
 * of a recorded session (agent-loop's `rerun`): register these instead of starting servers.
 *
 * @example
 * ```ts
 * for (const tool of recordedMcpTools(recordedEvents)) runtime.register(tool);
 * ```
 */
export function recordedMcpTools(events: readonly SessionEvent[]): AnyToolDefinition[] {
  const specs = new Map<string, ToolSpec>();
  const results = new Map<string, ToolResultBody>();
  for (const event of events) {
    if (event.type === 'tools/defined')
      for (const spec of (event.body as { tools: ToolSpec[] }).tools)
        if (spec.name.startsWith('mcp__') && !specs.has(spec.name)) specs.set(spec.name, spec);
    if (event.type === 'tool/result') {
      const body = event.body as ToolResultBody;
      if (body.toolName.startsWith('mcp__')) results.set(body.toolCallId, body);
    }
  }
  return [...specs.values()].map((spec) => {
    const tool = {
      spec,
      permissions: {},
      execute: async (_args: unknown, context: { callId: string }) => {
        const recorded = results.get(context.callId);
        if (!recorded || recorded.toolName !== spec.name)
          return {
            content: `No recorded result for ${spec.name} call ${context.callId}: the rerun does not start MCP servers.`,
            isError: true,
          };
        return {
          content: recorded.content,
          isError: recorded.isError,
          ...(recorded.meta ? { meta: recorded.meta } : {}),
        };
      },
    };
    return tool as unknown as AnyToolDefinition;
  });
}
