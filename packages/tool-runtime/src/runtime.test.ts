import type { ToolCallPart, ToolRunEvent } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { createToolRuntime } from './runtime.js';

const cwd = process.cwd();
let ids = 0;
const call = (name: string, args: unknown): ToolCallPart => ({
  type: 'tool-call',
  id: `c${++ids}`,
  name,
  arguments: JSON.stringify(args),
});
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('stopped'));
    });
  });

/** A tracer shared by the test tools: who is running, in which order things happened. */
function tracer() {
  const log: string[] = [];
  let active = 0;
  let maxActive = 0;
  const activeDuring: Record<string, number> = {};
  const make = (name: string, safe: boolean) =>
    defineTool({
      name,
      description: `${name} test tool`,
      parameters: z.object({ tag: z.string(), ms: z.number() }),
      isConcurrencySafe: safe,
      execute: async ({ tag, ms }, context) => {
        active++;
        maxActive = Math.max(maxActive, active);
        activeDuring[tag] = active;
        log.push(`start:${tag}`);
        try {
          await sleep(ms, context.signal);
        } finally {
          active--;
          log.push(`end:${tag}`);
        }
        return { content: `done ${tag}` };
      },
    });
  return {
    log,
    activeDuring,
    maxActive: () => maxActive,
    safe: make('safe', true),
    barrier: make('barrier', false),
  };
}

describe('ToolScheduler', () => {
  it('commits results in call order although tools finish in another order', async () => {
    const trace = tracer();
    const runtime = createToolRuntime({
      cwd,
      tools: [trace.safe],
      approval: 'never-ask',
      maxConcurrency: 32,
    });
    const calls = Array.from({ length: 30 }, (_, i) =>
      call('safe', { tag: String(i), ms: ((i * 37) % 50) + 1 }),
    );
    const events: ToolRunEvent[] = [];
    const results = await runtime.run(calls, { onEvent: (event) => events.push(event) });
    expect(results.map((result) => result.toolCallId)).toEqual(calls.map((c) => c.id));
    const committed = events
      .filter((event) => event.type === 'result')
      .map((event) => (event.type === 'result' ? event.body.toolCallId : ''));
    expect(committed).toEqual(calls.map((c) => c.id));
    const finished = trace.log
      .filter((entry) => entry.startsWith('end:'))
      .map((entry) => entry.slice(4));
    expect(finished).not.toEqual(calls.map((_, i) => String(i)));
    expect(trace.maxActive()).toBeGreaterThan(1);
    for (const c of calls) {
      const started = events.findIndex(
        (event) => event.type === 'started' && event.toolCallId === c.id,
      );
      const result = events.findIndex(
        (event) => event.type === 'result' && event.body.toolCallId === c.id,
      );
      expect(started).toBeGreaterThanOrEqual(0);
      expect(started).toBeLessThan(result);
    }
  });

  it('bounds the parallel pool by maxConcurrency', async () => {
    const trace = tracer();
    const runtime = createToolRuntime({
      cwd,
      tools: [trace.safe],
      approval: 'never-ask',
      maxConcurrency: 3,
    });
    await runtime.run(
      Array.from({ length: 10 }, (_, i) => call('safe', { tag: String(i), ms: 15 })),
    );
    expect(trace.maxActive()).toBe(3);
  });

  it('runs every non-safe tool as an exclusive barrier', async () => {
    const trace = tracer();
    const runtime = createToolRuntime({
      cwd,
      tools: [trace.safe, trace.barrier],
      approval: 'never-ask',
    });
    const plan: Array<[string, string, number]> = [
      ['safe', 'a', 40],
      ['safe', 'b', 10],
      ['barrier', 'X', 10],
      ['safe', 'c', 5],
      ['safe', 'd', 30],
      ['barrier', 'Y', 5],
      ['barrier', 'Z', 5],
    ];
    await runtime.run(plan.map(([name, tag, ms]) => call(name, { tag, ms })));
    const at = (entry: string) => trace.log.indexOf(entry);
    expect(trace.activeDuring.X).toBe(1);
    expect(trace.activeDuring.Y).toBe(1);
    expect(trace.activeDuring.Z).toBe(1);
    expect(at('start:X')).toBeGreaterThan(Math.max(at('end:a'), at('end:b')));
    expect(at('start:c')).toBeGreaterThan(at('end:X'));
    expect(at('start:Y')).toBeGreaterThan(Math.max(at('end:c'), at('end:d')));
    expect(at('start:Z')).toBeGreaterThan(at('end:Y'));
    expect(trace.activeDuring.d).toBe(2);
  });

  it('emits started before the tool executes, with the raw arguments', async () => {
    const events: ToolRunEvent[] = [];
    let sawStarted = false;
    const probe = defineTool({
      name: 'probe',
      description: 'checks the log',
      parameters: { type: 'object', properties: {} },
      execute: async (_args, context) => {
        sawStarted = events.some(
          (event) => event.type === 'started' && event.toolCallId === context.callId,
        );
        return { content: 'ok' };
      },
    });
    const runtime = createToolRuntime({ cwd, tools: [probe], approval: 'never-ask' });
    await runtime.run([{ type: 'tool-call', id: 'p1', name: 'probe', arguments: '' }], {
      onEvent: (event) => events.push(event),
    });
    expect(sawStarted).toBe(true);
    expect(events.map((event) => event.type)).toEqual(['approval', 'started', 'result']);
  });

  it('turns unknown tools, bad JSON and schema violations into error results', async () => {
    const trace = tracer();
    const runtime = createToolRuntime({ cwd, tools: [trace.safe], approval: 'never-ask' });
    const results = await runtime.run([
      call('nope', {}),
      { type: 'tool-call', id: 'bad', name: 'safe', arguments: '{"tag": ' },
      call('safe', { tag: 1, ms: 'x', extra: true }),
      call('safe', { ms: 1 }),
    ]);
    expect(results.map((result) => result.outcome)).toEqual([
      'not-found',
      'invalid',
      'invalid',
      'invalid',
    ]);
    expect(results[0]!.content).toMatch(/Unknown tool `nope`. Available tools: safe/);
    expect(results[1]!.content).toMatch(/not valid JSON/);
    expect(results[2]!.content).toMatch(/`tag` must be string/);
    expect(results[2]!.content).toMatch(/`ms` must be number/);
    expect(results[3]!.content).toMatch(/missing required field `tag`/);
    expect(trace.log).toEqual([]);
  });

  it('times a tool out, and gives up on one that ignores its signal', async () => {
    const polite = defineTool({
      name: 'polite',
      description: 'stops on abort',
      parameters: { type: 'object' },
      timeoutMs: 30,
      execute: async (_args, context) => {
        await sleep(5000, context.signal).catch(() => undefined);
        return { content: 'partial' };
      },
    });
    const stubborn = defineTool({
      name: 'stubborn',
      description: 'ignores abort',
      parameters: { type: 'object' },
      timeoutMs: 30,
      execute: async () => {
        await sleep(400);
        return { content: 'late' };
      },
    });
    const runtime = createToolRuntime({
      cwd,
      tools: [polite, stubborn],
      approval: 'never-ask',
      abortGraceMs: 50,
    });
    const [first, second] = await runtime.run([call('polite', {}), call('stubborn', {})]);
    expect(first).toMatchObject({ outcome: 'timeout', isError: true });
    expect(first!.content).toBe('partial\n[timed out after 30 ms]');
    expect(second).toMatchObject({ outcome: 'timeout', isError: true });
    expect(second!.content).toMatch(/did not stop within 50 ms; its effects are unknown/);
  });

  it('gives every call a result when the batch is aborted: running ones aborted, later ones not started', async () => {
    const trace = tracer();
    const runtime = createToolRuntime({
      cwd,
      tools: [trace.safe, trace.barrier],
      approval: 'never-ask',
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const results = await runtime.run(
      [
        call('safe', { tag: 'a', ms: 5 }),
        call('barrier', { tag: 'b', ms: 5000 }),
        call('safe', { tag: 'c', ms: 5 }),
      ],
      { signal: controller.signal },
    );
    expect(results.map((result) => result.outcome)).toEqual(['ok', 'aborted', 'not-started']);
    expect(results[2]!.content).toMatch(/Retry it if it is still needed/);
    expect(trace.log).not.toContain('start:c');
  });

  it('truncates long results and records the original length', async () => {
    const big = defineTool({
      name: 'big',
      description: 'big',
      parameters: { type: 'object' },
      execute: async () => ({ content: 'x'.repeat(500) }),
    });
    const runtime = createToolRuntime({
      cwd,
      tools: [big],
      approval: 'never-ask',
      maxResultChars: 100,
    });
    const [result] = await runtime.run([call('big', {})]);
    expect(result!.content.startsWith('x'.repeat(100))).toBe(true);
    expect(result!.content).toMatch(/Output truncated: showing the first 100 of 500 characters/);
    expect(result!.meta).toMatchObject({ truncated: true, originalLength: 500, params: {} });
    expect(typeof result!.meta?.durationMs).toBe('number');
  });

  it('renders a thrown error as an error result', async () => {
    const boom = defineTool({
      name: 'boom',
      description: 'throws',
      parameters: { type: 'object' },
      execute: async () => {
        throw new Error('disk on fire');
      },
    });
    const runtime = createToolRuntime({ cwd, tools: [boom], approval: 'never-ask' });
    const [result] = await runtime.run([call('boom', {})]);
    expect(result).toMatchObject({
      outcome: 'error',
      isError: true,
      content: 'Tool failed: disk on fire',
    });
  });

  it('serialises calls that mutate the same path even when declared safe', async () => {
    let active = 0;
    let maxActive = 0;
    const touch = defineTool({
      name: 'touch',
      description: 'mutates a path',
      parameters: z.object({ path: z.string() }),
      isConcurrencySafe: true,
      mutatedPaths: ({ path }) => [path],
      execute: async () => {
        maxActive = Math.max(maxActive, ++active);
        await sleep(10);
        active--;
        return { content: 'ok' };
      },
    });
    const runtime = createToolRuntime({ cwd, tools: [touch], approval: 'never-ask' });
    await runtime.run([
      call('touch', { path: 'a' }),
      call('touch', { path: './a' }),
      call('touch', { path: 'b/../a' }),
    ]);
    expect(maxActive).toBe(1);
  });

  it('shows each agent only its visible tools, and refuses hidden ones', async () => {
    const trace = tracer();
    const runtime = createToolRuntime({
      cwd,
      tools: [trace.safe, trace.barrier],
      approval: 'never-ask',
      visibility: (agent, tool) => agent !== 'reviewer' || tool.spec.name === 'safe',
    });
    expect(runtime.specs().map((spec) => spec.name)).toEqual(['barrier', 'safe']);
    expect(runtime.specs('reviewer').map((spec) => spec.name)).toEqual(['safe']);
    const [result] = await runtime.run([call('barrier', { tag: 'x', ms: 1 })], {
      agent: 'reviewer',
    });
    expect(result!.outcome).toBe('not-found');
  });

  it('stops the batch and rethrows when onEvent throws', async () => {
    const trace = tracer();
    const runtime = createToolRuntime({ cwd, tools: [trace.barrier], approval: 'never-ask' });
    const failure = new Error('log closed');
    const run = runtime.run(
      [call('barrier', { tag: 'a', ms: 1 }), call('barrier', { tag: 'b', ms: 1 })],
      {
        onEvent: (event) => {
          if (event.type === 'result') throw failure;
        },
      },
    );
    await expect(run).rejects.toBe(failure);
    expect(trace.log).not.toContain('start:b');
  });
});

describe('ToolScheduler with an already-aborted signal', () => {
  it('starts nothing and answers every call as not started', async () => {
    let ran = false;
    const tool = defineTool({
      name: 't',
      description: 't',
      parameters: { type: 'object' },
      execute: async () => {
        ran = true;
        return { content: '' };
      },
    });
    const runtime = createToolRuntime({ cwd, tools: [tool], approval: 'never-ask' });
    const results = await runtime.run([call('t', {}), call('t', {})], {
      signal: AbortSignal.abort(),
    });
    expect(results.map((result) => result.outcome)).toEqual(['not-started', 'not-started']);
    expect(ran).toBe(false);
    expect(await runtime.run([])).toEqual([]);
  });
});
