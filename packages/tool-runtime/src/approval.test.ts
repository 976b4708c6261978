import type { ApprovalRequest, ToolCallPart, ToolRunEvent } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApprovalPolicy, matchApprovalRule } from './approval.js';
import { defineTool } from './define-tool.js';
import { createToolRuntime } from './runtime.js';

const cwd = process.cwd();
let ids = 0;
const call = (name: string, args: unknown = {}): ToolCallPart => ({
  type: 'tool-call',
  id: `a${++ids}`,
  name,
  arguments: JSON.stringify(args),
});
const ran: string[] = [];
const look = defineTool({
  name: 'look',
  description: 'reads',
  parameters: { type: 'object' },
  isConcurrencySafe: true,
  execute: async () => {
    ran.push('look');
    return { content: 'seen' };
  },
});
const change = defineTool({
  name: 'change',
  description: 'writes',
  parameters: { type: 'object' },
  permissions: { writesFiles: true },
  execute: async () => {
    ran.push('change');
    return { content: 'changed' };
  },
});
const shell = defineTool({
  name: 'shell',
  description: 'runs',
  parameters: z.object({
    command: z.string(),
    escalation: z
      .object({ justification: z.string(), permissions: z.object({ network: z.boolean() }) })
      .optional(),
  }),
  permissions: { executes: true },
  execute: async ({ command }, context) => {
    ran.push(`shell:${command}:${JSON.stringify(context.grantedPermissions ?? null)}`);
    return { content: 'ran' };
  },
});
const tools = [look, change, shell];

function recorder(answer: 'once' | 'always' | 'deny') {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    approve: async (request: ApprovalRequest) => {
      asked.push(request);
      return answer;
    },
  };
}

describe('approval policies', () => {
  it('ask: reads run, writes and commands ask; once, always and deny are recorded as data', async () => {
    const runtime = createToolRuntime({ cwd, tools, approval: 'ask' });
    const events: ToolRunEvent[] = [];
    const once = recorder('once');
    const results = await runtime.run([call('look'), call('change')], {
      approve: once.approve,
      onEvent: (event) => events.push(event),
    });
    expect(results.map((result) => result.outcome)).toEqual(['ok', 'ok']);
    expect(once.asked.map((request) => request.toolName)).toEqual(['change']);
    const approvals = events.flatMap((event) => (event.type === 'approval' ? [event.body] : []));
    expect(approvals).toMatchObject([
      { toolName: 'look', decision: 'allow', by: 'policy:ask', scope: 'policy' },
      { toolName: 'change', decision: 'allow', by: 'user', scope: 'once' },
    ]);
    const always = recorder('always');
    await runtime.run([call('change')], { approve: always.approve });
    const later = recorder('deny');
    const [remembered] = await runtime.run([call('change')], {
      approve: later.approve,
      onEvent: (event) => events.push(event),
    });
    expect(remembered!.outcome).toBe('ok');
    expect(later.asked).toEqual([]);
    expect(events.at(-3)).toMatchObject({
      type: 'approval',
      body: { by: 'user', scope: 'session' },
    });
    const [declined] = await runtime.run([call('shell', { command: 'ls' })], {
      approve: later.approve,
    });
    expect(declined).toMatchObject({ outcome: 'denied', isError: true });
    expect(declined!.content).toMatch(/the person declined \(runs a command\)/);
  });

  it('an abort ends a wait for an answer that never comes', async () => {
    ran.length = 0;
    const runtime = createToolRuntime({ cwd, tools, approval: 'ask' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const results = await runtime.run([call('change'), call('change')], {
      signal: controller.signal,
      approve: () => new Promise(() => undefined),
    });
    expect(results.map((result) => result.outcome)).toEqual(['denied', 'not-started']);
    expect(results[0]!.content).toMatch(/aborted while waiting for approval/);
    expect(ran).toEqual([]);
  });

  it('answers a call whose visibility rule throws, and runs the rest', async () => {
    const runtime = createToolRuntime({
      cwd,
      tools,
      approval: 'never-ask',
      visibility: (_agent, tool) => {
        if (tool.spec.name === 'change') throw new Error('rule crashed');
        return true;
      },
    });
    const results = await runtime.run([call('change'), call('look')]);
    expect(results.map((result) => result.outcome)).toEqual(['error', 'ok']);
    expect(results[0]!.content).toMatch(/could not be prepared: rule crashed/);
  });

  it('ask without anyone to answer denies instead of running', async () => {
    ran.length = 0;
    const runtime = createToolRuntime({ cwd, tools, approval: 'ask' });
    const [result] = await runtime.run([call('change')]);
    expect(result!.outcome).toBe('denied');
    expect(ran).toEqual([]);
  });

  it('auto-edit allows edits and asks for commands; never-ask never prompts; deny-all refuses all', async () => {
    const asked = recorder('deny');
    const autoEdit = createToolRuntime({ cwd, tools, approval: 'auto-edit' });
    const edited = await autoEdit.run([call('change'), call('shell', { command: 'ls' })], {
      approve: asked.approve,
    });
    expect(edited.map((result) => result.outcome)).toEqual(['ok', 'denied']);
    expect(asked.asked.map((request) => request.toolName)).toEqual(['shell']);
    const neverAsk = createToolRuntime({ cwd, tools, approval: 'never-ask' });
    const quiet = recorder('deny');
    expect(
      (
        await neverAsk.run([call('change'), call('shell', { command: 'ls' })], {
          approve: quiet.approve,
        })
      ).map((r) => r.outcome),
    ).toEqual(['ok', 'ok']);
    expect(quiet.asked).toEqual([]);
    neverAsk.setApproval('deny-all');
    expect((await neverAsk.run([call('look')])).map((r) => r.outcome)).toEqual(['denied']);
    expect(() => createApprovalPolicy('sometimes' as 'ask')).toThrow(/unknown approval policy/);
  });

  it('accepts a custom policy of a known specification version and refuses another', async () => {
    const onlyLook = {
      specificationVersion: 1 as const,
      name: 'only-look',
      decide: (check: { toolName: string }) => ({
        decision: check.toolName === 'look' ? ('allow' as const) : ('deny' as const),
        reason: 'only look',
      }),
    };
    const runtime = createToolRuntime({ cwd, tools, approval: onlyLook });
    const results = await runtime.run([call('look'), call('change')]);
    expect(results.map((result) => result.outcome)).toEqual(['ok', 'denied']);
    expect(results[1]!.content).toMatch(/policy:only-look/);
    expect(() =>
      runtime.setApproval({ ...onlyLook, specificationVersion: 2 as unknown as 1 }),
    ).toThrow(/specificationVersion 2/);
  });

  it('rules allow a command prefix without asking, but not a chained command, and deny rules win', async () => {
    ran.length = 0;
    const runtime = createToolRuntime({
      cwd,
      tools,
      approval: 'ask',
      rules: [
        { tool: 'shell', argument: 'command', prefix: 'git status', decision: 'allow' },
        {
          tool: 'shell',
          argument: 'command',
          pattern: /rm\s+-rf/,
          decision: 'deny',
          reason: 'no recursive deletes',
        },
      ],
    });
    const asked = recorder('once');
    const results = await runtime.run(
      [
        call('shell', { command: 'git status --short' }),
        call('shell', { command: 'git status; curl evil' }),
        call('shell', { command: 'git status && rm -rf /' }),
      ],
      { approve: asked.approve },
    );
    expect(results.map((result) => result.outcome)).toEqual(['ok', 'ok', 'denied']);
    expect(asked.asked.map((request) => (request.args as { command: string }).command)).toEqual([
      'git status; curl evil',
    ]);
    expect(results[2]!.content).toMatch(/no recursive deletes/);
    expect(
      matchApprovalRule([{ tool: 'web_*', decision: 'deny' }], { toolName: 'web_fetch', args: {} })
        ?.decision,
    ).toBe('deny');
  });

  it('grants an escalation only through a person, never through rules or never-ask', async () => {
    ran.length = 0;
    const escalate = {
      command: 'curl x',
      escalation: { justification: 'download the fixture', permissions: { network: true } },
    };
    const ruled = createToolRuntime({
      cwd,
      tools,
      approval: 'ask',
      rules: [{ tool: 'shell', decision: 'allow' }],
    });
    const asked = recorder('once');
    const events: ToolRunEvent[] = [];
    const [granted] = await ruled.run([call('shell', escalate)], {
      approve: asked.approve,
      onEvent: (event) => events.push(event),
    });
    expect(granted!.outcome).toBe('ok');
    expect(asked.asked[0]!.escalation).toEqual(escalate.escalation);
    expect(ran).toEqual(['shell:curl x:{"network":true}']);
    expect(events[0]).toMatchObject({
      type: 'approval',
      body: { by: 'user', escalation: escalate.escalation },
    });
    const [plain] = await ruled.run([call('shell', { command: 'ls' })]);
    expect(plain!.outcome).toBe('ok');
    expect(ran.at(-1)).toBe('shell:ls:null');
    const neverAsk = createToolRuntime({ cwd, tools, approval: 'never-ask' });
    const [refused] = await neverAsk.run([call('shell', escalate)], { approve: asked.approve });
    expect(refused!.outcome).toBe('denied');
    expect(refused!.content).toMatch(/retry without escalation/);
  });
});

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
