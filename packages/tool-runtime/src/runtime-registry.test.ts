import type { ToolCallPart, ToolRunEvent } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { createToolRuntime } from './runtime.js';

const cwd = process.cwd();
let ids = 0;
const call = (name: string, args: unknown): ToolCallPart => ({
  type: 'tool-call',
  id: `r${++ids}`,
  name,
  arguments: JSON.stringify(args),
});
const echo = defineTool({
  name: 'echo',
  description: 'echo',
  parameters: z.object({ text: z.string() }),
  isConcurrencySafe: true,
  execute: async ({ text }) => ({ content: text }),
});

describe('registry', () => {
  it('registers and unregisters tools while the runtime lives', async () => {
    const runtime = createToolRuntime({ cwd, approval: 'never-ask' });
    expect(runtime.specs()).toEqual([]);
    runtime.register(echo);
    expect(runtime.specs().map((spec) => spec.name)).toEqual(['echo']);
    expect((await runtime.run([call('echo', { text: 'hi' })]))[0]!.content).toBe('hi');
    expect(runtime.unregister('echo')).toBe(true);
    expect(runtime.unregister('echo')).toBe(false);
    expect((await runtime.run([call('echo', { text: 'hi' })]))[0]!.outcome).toBe('not-found');
  });

  it('asks a per-call predicate whether a call is concurrency-safe', async () => {
    let active = 0;
    let maxActive = 0;
    const job = defineTool({
      name: 'job',
      description: 'job',
      parameters: z.object({ exclusive: z.boolean() }),
      isConcurrencySafe: ({ exclusive }) => !exclusive,
      execute: async () => {
        maxActive = Math.max(maxActive, ++active);
        await new Promise((resolve) => setTimeout(resolve, 10));
        active--;
        return { content: 'done' };
      },
    });
    const runtime = createToolRuntime({ cwd, tools: [job], approval: 'never-ask' });
    await runtime.run([call('job', { exclusive: false }), call('job', { exclusive: false })]);
    expect(maxActive).toBe(2);
    maxActive = 0;
    await runtime.run([call('job', { exclusive: true }), call('job', { exclusive: true })]);
    expect(maxActive).toBe(1);
  });

  it('forwards progress while a tool runs, and drops progress reported after its result', async () => {
    let late: (() => void) | undefined;
    const chatty = defineTool({
      name: 'chatty',
      description: 'reports progress',
      parameters: { type: 'object' },
      execute: async (_args, context) => {
        context.onProgress?.({ message: 'half way' });
        late = () => context.onProgress?.({ message: 'too late' });
        return { content: 'done' };
      },
    });
    const runtime = createToolRuntime({ cwd, tools: [chatty], approval: 'never-ask' });
    const events: ToolRunEvent[] = [];
    await runtime.run([call('chatty', {})], { onEvent: (event) => events.push(event) });
    late?.();
    expect(events.map((event) => event.type)).toEqual([
      'approval',
      'started',
      'progress',
      'result',
    ]);
    expect(events[2]).toMatchObject({ type: 'progress', message: 'half way' });
  });

  it('refuses options it cannot honour with a clear error', () => {
    expect(() => createToolRuntime({ cwd: 'relative/dir' })).toThrow(/cwd must be absolute/);
    expect(() => createToolRuntime({ cwd: '/nonexistent-spine-dir' })).toThrow(/does not exist/);
    expect(() => createToolRuntime({ cwd, sandbox: 'wide-open' as 'read-only' })).toThrow(
      /unknown sandbox mode/,
    );
  });
});
