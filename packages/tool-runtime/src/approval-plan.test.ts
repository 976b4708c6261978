import type { ToolRunEvent } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { call, cwd, ran, recorder, tools } from '../test/approval-fixtures.js';
import { createApprovalPolicy } from './approval.js';
import { createToolRuntime } from './runtime.js';

describe('the plan approval policy', () => {
  it('runs reads and refuses writes and commands without asking anyone, recording why', async () => {
    ran.length = 0;
    const runtime = createToolRuntime({ cwd, tools, approval: 'plan' });
    const asked = recorder('always');
    const events: ToolRunEvent[] = [];
    const results = await runtime.run(
      [call('look'), call('change'), call('shell', { command: 'ls' })],
      { approve: asked.approve, onEvent: (event) => events.push(event) },
    );
    expect(results.map((result) => result.outcome)).toEqual(['ok', 'denied', 'denied']);
    expect(ran).toEqual(['look']);
    expect(asked.asked).toEqual([]);
    const approvals = events.flatMap((event) => (event.type === 'approval' ? [event.body] : []));
    expect(approvals).toMatchObject([
      { toolName: 'look', decision: 'allow', by: 'policy:plan' },
      { toolName: 'change', decision: 'deny', by: 'policy:plan', reason: /plan mode/ },
      { toolName: 'shell', decision: 'deny', by: 'policy:plan', reason: /plan mode/ },
    ]);
  });

  it('is a ceiling: allow rules, allowing hooks and earlier always answers do not lift it', async () => {
    ran.length = 0;
    const runtime = createToolRuntime({
      cwd,
      tools,
      approval: 'ask',
      rules: [{ tool: 'shell', argument: 'command', prefix: 'git status', decision: 'allow' }],
    });
    // An `always` given before plan mode must not carry into it.
    await runtime.run([call('change')], { approve: recorder('always').approve });
    runtime.hooks.preExecute.push(() => ({ decision: 'allow' }));
    runtime.setApproval('plan');
    ran.length = 0;
    const results = await runtime.run([call('change'), call('shell', { command: 'git status' })], {
      approve: recorder('always').approve,
    });
    expect(results.map((result) => result.outcome)).toEqual(['denied', 'denied']);
    expect(ran).toEqual([]);
    runtime.setApproval('ask');
    const back = await runtime.run([call('change')], { approve: recorder('deny').approve });
    expect(back.map((result) => result.outcome)).toEqual(['ok']);
  });

  it('refuses every call with effects and allows every pure read or network read', () => {
    const plan = createApprovalPolicy('plan');
    fc.assert(
      fc.property(
        fc.record({
          writesFiles: fc.option(fc.boolean(), { nil: undefined }),
          executes: fc.option(fc.boolean(), { nil: undefined }),
          network: fc.option(fc.boolean(), { nil: undefined }),
        }),
        fc.boolean(),
        fc.constantFrom('read-only', 'workspace-write', 'danger-full-access') as fc.Arbitrary<
          'read-only' | 'workspace-write' | 'danger-full-access'
        >,
        (permissions, escalate, sandbox) => {
          const verdict = plan.decide({
            toolName: 'any',
            args: {},
            permissions,
            sandbox,
            ...(escalate
              ? { escalation: { justification: 'need it', permissions: { network: true } } }
              : {}),
          });
          const effects = Boolean(permissions.writesFiles || permissions.executes || escalate);
          expect(verdict.decision).toBe(effects ? 'deny' : 'allow');
        },
      ),
    );
  });
});
