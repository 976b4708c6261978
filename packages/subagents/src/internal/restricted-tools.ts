import type {
  ToolCallPart,
  ToolResultBody,
  ToolRunEvent,
  ToolRunOptions,
  ToolScheduler,
  ToolSpec,
} from '@spine/protocol';

function refusal(call: ToolCallPart, allowed: ReadonlySet<string>): ToolResultBody {
  return {
    toolCallId: call.id,
    toolName: call.name,
    content: `Tool ${JSON.stringify(call.name)} is not available to this subagent. Available: ${[...allowed].sort().join(', ') || 'none'}.`,
    isError: true,
    outcome: 'not-found',
  };
}

/**
 * Wraps a child's tool scheduler so the child sees and runs only `allowed` tools, whatever the
 * caller's factory built: the guarantee that a child never has more tools than its parent does
 * not depend on the factory. A call to any other tool is answered as not found, without running,
 * and every result still reaches `onEvent` and the returned list in call order.
 */
export function restrictTools(inner: ToolScheduler, allowed: ReadonlySet<string>): ToolScheduler {
  return {
    specificationVersion: 1,
    specs(agent?: string): ToolSpec[] {
      return inner.specs(agent).filter((spec) => allowed.has(spec.name));
    },
    async run(
      calls: readonly ToolCallPart[],
      options: ToolRunOptions = {},
    ): Promise<ToolResultBody[]> {
      const permitted = calls.filter((call) => allowed.has(call.name));
      if (permitted.length === calls.length) return inner.run(calls, options);
      const onEvent = options.onEvent;
      let cursor = 0;
      // Emits the refusals of calls before `index` not emitted yet, keeping results in call order.
      const refuseUpTo = (index: number): void => {
        for (; cursor < index; cursor++) {
          const call = calls[cursor] as ToolCallPart;
          if (!allowed.has(call.name)) onEvent?.({ type: 'result', body: refusal(call, allowed) });
        }
      };
      const forward = (event: ToolRunEvent): void => {
        if (event.type === 'result') {
          const index = calls.findIndex((call) => call.id === event.body.toolCallId);
          refuseUpTo(index);
          cursor = Math.max(cursor, index + 1);
        }
        onEvent?.(event);
      };
      const ran =
        permitted.length > 0 ? await inner.run(permitted, { ...options, onEvent: forward }) : [];
      refuseUpTo(calls.length);
      const byId = new Map(ran.map((result) => [result.toolCallId, result]));
      return calls.map((call) => byId.get(call.id) ?? refusal(call, allowed));
    },
  };
}
