import type { ToolRunEvent } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { call, cwd, ran, recorder, tools } from '../test/approval-fixtures.js';
import { defineTool } from './define-tool.js';
import { createToolRuntime } from './runtime.js';

describe('hook chains', () => {
  it('pre-execute deny wins and is recorded; ask goes to the person; allow skips asking', async () => {
    ran.length = 0;
    const events: ToolRunEvent[] = [];
    const runtime = createToolRuntime({
      cwd,
      tools,
      approval: 'ask',
      hooks: {
        preExecute: [
          (hookCall) =>
            hookCall.toolName === 'look'
              ? { decision: 'ask', reason: 'user hook wants a look' }
              : undefined,
          (hookCall) =>
            hookCall.toolName === 'shell'
              ? { decision: 'deny', reason: 'shell is off today' }
              : undefined,
          (hookCall) => (hookCall.toolName === 'change' ? { decision: 'allow' } : undefined),
        ],
      },
    });
    const asked = recorder('once');
    const results = await runtime.run(
      [call('look'), call('shell', { command: 'ls' }), call('change')],
      { approve: asked.approve, onEvent: (event) => events.push(event) },
    );
    expect(results.map((result) => result.outcome)).toEqual(['ok', 'denied', 'ok']);
    expect(asked.asked.map((request) => request.reason)).toEqual(['a hook asked for approval']);
    expect(results[1]!.content).toMatch(/denied by a hook: shell is off today/);
    expect(
      events
        .filter((event) => event.type === 'approval')
        .map((event) => (event.type === 'approval' ? event.body.by : '')),
    ).toEqual(['user', 'hook', 'hook']);
    expect(ran).toEqual(['look', 'change']);
  });

  it('execute wrappers wrap the tool and post-execute hooks transform results in call order', async () => {
    const order: string[] = [];
    const slowFirst = defineTool({
      name: 'wait',
      description: 'waits',
      parameters: z.object({ ms: z.number() }),
      isConcurrencySafe: true,
      execute: async ({ ms }) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return { content: `waited ${ms}` };
      },
    });
    const runtime = createToolRuntime({ cwd, tools: [slowFirst], approval: 'never-ask' });
    runtime.hooks.execute.push(async (hookCall, _context, next) => {
      const output = await next();
      return { ...output, content: `[wrapped ${hookCall.toolName}] ${output.content}` };
    });
    runtime.hooks.postExecute.push((hookCall, output) => {
      order.push(hookCall.toolCallId);
      return {
        ...output,
        content: `${output.content} (post)`,
        meta: { ...output.meta, annotated: true },
      };
    });
    const calls = [call('wait', { ms: 40 }), call('wait', { ms: 1 })];
    const results = await runtime.run(calls);
    expect(results.map((result) => result.content)).toEqual([
      '[wrapped wait] waited 40 (post)',
      '[wrapped wait] waited 1 (post)',
    ]);
    expect(results[0]!.meta?.annotated).toBe(true);
    expect(order).toEqual(calls.map((c) => c.id));
  });

  it('runs asynchronous hooks in order and turns hook failures into results', async () => {
    ran.length = 0;
    const order: string[] = [];
    const runtime = createToolRuntime({
      cwd,
      tools,
      approval: 'never-ask',
      hooks: {
        preExecute: [
          async (hookCall) => {
            await new Promise((resolve) => setTimeout(resolve, 5));
            order.push(`pre:${hookCall.toolName}`);
            return hookCall.toolName === 'shell'
              ? { decision: 'deny', reason: 'async no' }
              : undefined;
          },
          (hookCall) => {
            if ((hookCall.args as { command?: string }).command === 'explode')
              throw new Error('hook bug');
            return undefined;
          },
        ],
        postExecute: [
          async (hookCall, output) => {
            await new Promise((resolve) => setTimeout(resolve, 5));
            order.push(`post:${hookCall.toolName}`);
            return { ...output, content: `${output.content}!` };
          },
          (hookCall) => {
            if (hookCall.toolName === 'change') throw new Error('post bug');
            return undefined;
          },
        ],
      },
    });
    const results = await runtime.run([
      call('look'),
      call('shell', { command: 'ls' }),
      call('change'),
    ]);
    expect(results.map((result) => result.outcome)).toEqual(['ok', 'denied', 'error']);
    expect(results[0]!.content).toBe('seen!');
    expect(results[1]!.content).toMatch(/denied by a hook: async no/);
    expect(results[2]!.content).toBe('changed!\n[a post-execute hook failed: post bug]');
    // Pre-hooks run in call order, post-hooks in call order; the two interleave with execution.
    expect(order.filter((entry) => entry.startsWith('pre:'))).toEqual([
      'pre:look',
      'pre:shell',
      'pre:change',
    ]);
    expect(order.filter((entry) => entry.startsWith('post:'))).toEqual([
      'post:look',
      'post:change',
    ]);
    expect(order.indexOf('pre:change')).toBeLessThan(order.indexOf('post:change'));
    const broken = createToolRuntime({
      cwd,
      tools,
      approval: 'never-ask',
      hooks: {
        preExecute: [
          () => {
            throw new Error('hook bug');
          },
        ],
      },
    });
    const [failed] = await broken.run([call('look')]);
    expect(failed).toMatchObject({ outcome: 'error' });
    expect(failed!.content).toMatch(/pre-execute hook failed, so the call did not run: hook bug/);
  });
});
