import type { ToolRunEvent } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { call, cwd, ran, recorder, tools } from '../test/approval-fixtures.js';
import { createApprovalPolicy, matchApprovalRule } from './approval.js';
import { createToolRuntime } from './runtime.js';

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
