// The tools the ToolScheduler kit hands to the scheduler under test, each recording what it saw.
import type {
  AnyToolDefinition,
  JsonSchema,
  ToolDefinition,
  ToolExecutionContext,
} from '@spine/protocol';

/** What the kit's tools observed while a case ran. */
export interface ToolProbe {
  /** Calls whose `execute` ran, by tool call id, in start order. */
  executed: string[];
  /** Most calls of the probe tools running at once. */
  maxActive: number;
  /** Calls whose signal fired while they ran. */
  sawAbort: string[];
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

const textArgs: JsonSchema = {
  type: 'object',
  properties: { text: { type: 'string' }, delayMs: { type: 'integer', minimum: 0 } },
  required: ['text'],
  additionalProperties: false,
};

/** Makes the kit's tools and the probe they report into. */
export function kitTools(): { tools: AnyToolDefinition[]; probe: ToolProbe } {
  const probe: ToolProbe = { executed: [], maxActive: 0, sawAbort: [] };
  let active = 0;
  const tracked =
    <A>(run: (args: A, context: ToolExecutionContext) => Promise<string>) =>
    async (args: A, context: ToolExecutionContext) => {
      probe.executed.push(context.callId);
      active++;
      probe.maxActive = Math.max(probe.maxActive, active);
      try {
        return { content: await run(args, context) };
      } finally {
        active--;
        if (context.signal.aborted) probe.sawAbort.push(context.callId);
      }
    };
  const echo = (
    safe: boolean,
    name: string,
  ): ToolDefinition<{ text: string; delayMs?: number }> => ({
    spec: { name, description: 'Returns `text` after `delayMs` ms.', parameters: textArgs },
    isConcurrencySafe: safe,
    permissions: {},
    execute: tracked(async (args, context) => {
      await sleep(args.delayMs ?? 0, context.signal);
      return `echo: ${args.text}`;
    }),
  });
  const tools: AnyToolDefinition[] = [
    echo(true, 'kit_echo') as AnyToolDefinition,
    echo(false, 'kit_serial') as AnyToolDefinition,
    {
      spec: {
        name: 'kit_wait',
        description: 'Waits until its signal fires (at most 5 s).',
        parameters: { type: 'object', properties: {}, additionalProperties: false },
      },
      isConcurrencySafe: true,
      permissions: {},
      execute: tracked(async (_args, context) => {
        await sleep(5_000, context.signal);
        return context.signal.aborted ? 'stopped by abort' : 'waited 5 s';
      }),
    },
    {
      spec: {
        name: 'kit_exec',
        description: 'Pretends to run a command (it needs approval).',
        parameters: { type: 'object', properties: {}, additionalProperties: false },
      },
      permissions: { executes: true },
      execute: tracked(async () => 'ran'),
    },
    {
      spec: {
        name: 'kit_explode',
        description: 'Always throws.',
        parameters: { type: 'object', properties: {}, additionalProperties: false },
      },
      isConcurrencySafe: true,
      permissions: {},
      execute: tracked(async () => {
        throw new Error('kaboom from kit_explode');
      }),
    },
  ];
  return { tools, probe };
}
