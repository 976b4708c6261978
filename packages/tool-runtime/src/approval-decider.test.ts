import type { ApprovalDecision, ToolApprovalBody, ToolRunEvent } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { call, cwd, tools } from '../test/approval-fixtures.js';
import { createToolRuntime } from './runtime.js';

// An approver may name another decider than the person (a permission-request hook): the
// `tool/approval` body records it as `by`, with its reason; a malformed decision denies.

async function decide(answer: unknown): Promise<{ body: ToolApprovalBody; outcome: string }> {
  const runtime = createToolRuntime({ cwd, tools, approval: 'ask' });
  const events: ToolRunEvent[] = [];
  const [result] = await runtime.run([call('change')], {
    approve: async () => answer as ApprovalDecision,
    onEvent: (event) => events.push(event),
  });
  const approval = events.find((event) => event.type === 'approval');
  if (approval?.type !== 'approval') throw new Error('no approval event');
  return { body: approval.body, outcome: result?.outcome ?? 'none' };
}

describe('approval decisions with a named decider', () => {
  it('records an allow by the decider with its reason, once', async () => {
    const { body, outcome } = await decide({
      answer: 'once',
      by: 'hook:permission-request',
      reason: 'ok',
    });
    expect(outcome).toBe('ok');
    expect(body).toMatchObject({
      decision: 'allow',
      by: 'hook:permission-request',
      reason: 'ok',
      scope: 'once',
    });
  });

  it('records a deny by the decider with its reason', async () => {
    const { body, outcome } = await decide({
      answer: 'deny',
      by: 'hook:permission-request',
      reason: 'not today',
    });
    expect(outcome).toBe('denied');
    expect(body).toMatchObject({
      decision: 'deny',
      by: 'hook:permission-request',
      reason: 'not today',
    });
  });

  it('denies, as the person, on a decision without a decider or with an unknown answer', async () => {
    for (const answer of [
      { answer: 'once' },
      { answer: 'always', by: 'x' },
      { answer: 'once', by: '' },
    ]) {
      const { body, outcome } = await decide(answer);
      expect(outcome, JSON.stringify(answer)).toBe('denied');
      expect(body).toMatchObject({ decision: 'deny', by: 'user' });
    }
  });
});
