import type {
  ApprovalAnswer,
  ApprovalRequest,
  ToolApprovalBody,
  ToolRunEvent,
} from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { call, cwd, ran, tools } from '../test/approval-fixtures.js';
import type { ApprovalPolicy, ApprovalPolicyName } from './approval.js';
import { createToolRuntime } from './runtime.js';

/** Answers no approver may use to run a call, as a JavaScript caller could return them. */
const NON_ALLOW_ANSWERS: { label: string; answer: () => unknown }[] = [
  { label: 'undefined', answer: () => undefined },
  { label: 'null', answer: () => null },
  { label: 'false', answer: () => false },
  { label: 'true', answer: () => true },
  { label: "''", answer: () => '' },
  { label: "'no'", answer: () => 'no' },
  { label: "'cancel'", answer: () => 'cancel' },
  { label: "'deny'", answer: () => 'deny' },
  { label: "'yes'", answer: () => 'yes' },
  { label: "'allow'", answer: () => 'allow' },
  { label: "'ONCE'", answer: () => 'ONCE' },
  { label: "' once'", answer: () => ' once' },
  { label: '0', answer: () => 0 },
  { label: '1', answer: () => 1 },
  { label: 'NaN', answer: () => Number.NaN },
  { label: '{}', answer: () => ({}) },
  { label: "{ decision: 'allow' }", answer: () => ({ decision: 'allow' }) },
  { label: "['once']", answer: () => ['once'] },
  { label: "new String('once')", answer: () => new String('once') },
  { label: 'a function', answer: () => () => 'once' },
  { label: 'a symbol', answer: () => Symbol('once') },
];

/** For each policy, a call that this policy would put to a person (or refuse outright). */
const ASKING_CALL: Record<ApprovalPolicyName, () => ReturnType<typeof call>> = {
  ask: () => call('change'),
  'auto-edit': () => call('shell', { command: 'ls' }),
  'never-ask': () =>
    call('shell', {
      command: 'ls',
      escalation: { justification: 'needs the network', permissions: { network: true } },
    }),
  'deny-all': () => call('change'),
  plan: () => call('change'),
};

const alwaysAsk: ApprovalPolicy = {
  specificationVersion: 1,
  name: 'always-ask',
  decide: () => ({ decision: 'ask', reason: 'the custom policy asks for everything' }),
};

async function runWith(
  approval: ApprovalPolicyName | ApprovalPolicy,
  approve: (request: ApprovalRequest) => Promise<ApprovalAnswer>,
  options: { approvalTimeoutMs?: number } = {},
): Promise<{ outcome: string | undefined; approval: ToolApprovalBody; asked: number }> {
  ran.length = 0;
  let asked = 0;
  const runtime = createToolRuntime({ cwd, tools, approval, ...options });
  const events: ToolRunEvent[] = [];
  const policyName = typeof approval === 'string' ? approval : 'ask';
  const [result] = await runtime.run([ASKING_CALL[policyName]()], {
    approve: (request) => {
      asked++;
      return approve(request);
    },
    onEvent: (event) => events.push(event),
  });
  expect(ran).toEqual([]);
  const approvals = events.flatMap((event) => (event.type === 'approval' ? [event.body] : []));
  expect(approvals).toHaveLength(1);
  return { outcome: result!.outcome, approval: approvals[0]!, asked };
}

const POLICIES: (ApprovalPolicyName | ApprovalPolicy)[] = [
  'ask',
  'auto-edit',
  'never-ask',
  'plan',
  'deny-all',
  alwaysAsk,
];
const nameOf = (policy: ApprovalPolicyName | ApprovalPolicy): string =>
  typeof policy === 'string' ? policy : policy.name;

describe('approvals fail closed', () => {
  for (const policy of POLICIES) {
    describe(`policy ${nameOf(policy)}`, () => {
      for (const { label, answer } of NON_ALLOW_ANSWERS) {
        it(`an approver resolving ${label} denies the call and records why`, async () => {
          const { outcome, approval, asked } = await runWith(
            policy,
            async () => answer() as ApprovalAnswer,
          );
          expect(outcome).toBe('denied');
          expect(approval.decision).toBe('deny');
          expect(approval.reason).toMatch(/./);
          const putToPerson = policy === 'ask' || policy === 'auto-edit' || policy === alwaysAsk;
          expect(asked).toBe(putToPerson ? 1 : 0);
          if (putToPerson && label !== "'deny'") {
            expect(approval.by).toBe('user');
            expect(approval.reason).toMatch(/not an allow answer/);
          }
        });
      }

      it('an approver that throws synchronously denies the call', async () => {
        const { outcome, approval } = await runWith(policy, () => {
          throw new Error('the UI crashed');
        });
        expect(outcome).toBe('denied');
        if (policy === 'ask' || policy === alwaysAsk)
          expect(approval.reason).toMatch(/approval failed: the UI crashed/);
      });

      it('an approver that rejects denies the call', async () => {
        const { outcome, approval } = await runWith(policy, () =>
          Promise.reject(new Error('the terminal closed')),
        );
        expect(outcome).toBe('denied');
        if (policy === 'ask' || policy === alwaysAsk)
          expect(approval.reason).toMatch(/approval failed: the terminal closed/);
      });

      it('an approver that never answers is denied at the approval timeout', async () => {
        const { outcome, approval } = await runWith(policy, () => new Promise(() => undefined), {
          approvalTimeoutMs: 50,
        });
        expect(outcome).toBe('denied');
        if (policy === 'ask' || policy === alwaysAsk)
          expect(approval.reason).toMatch(/no answer within 50 ms/);
      });
    });
  }

  it('only once and always run a call (any other value, generated, is denied)', async () => {
    const runtime = createToolRuntime({ cwd, tools, approval: 'ask' });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.anything(), fc.string(), fc.constantFrom('Once', 'always ', 'deny', 'allow')),
        async (value) => {
          fc.pre(value !== 'once' && value !== 'always');
          ran.length = 0;
          const [result] = await runtime.run([call('change')], {
            approve: async () => value as ApprovalAnswer,
          });
          expect(result!.outcome).toBe('denied');
          expect(ran).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
    for (const answer of ['once', 'always'] as const) {
      ran.length = 0;
      const fresh = createToolRuntime({ cwd, tools, approval: 'ask' });
      const [result] = await fresh.run([call('change')], { approve: async () => answer });
      expect(result!.outcome).toBe('ok');
    }
  });

  it('a policy that throws or returns something other than a verdict denies', async () => {
    for (const decide of [
      () => {
        throw new Error('policy bug');
      },
      () => undefined,
      () => ({ decision: 'yes', reason: 'typo' }),
      () => 'allow',
    ]) {
      ran.length = 0;
      const policy = {
        specificationVersion: 1,
        name: 'broken',
        decide,
      } as unknown as ApprovalPolicy;
      const runtime = createToolRuntime({ cwd, tools, approval: policy });
      const events: ToolRunEvent[] = [];
      const [result] = await runtime.run([call('look')], {
        approve: async () => 'once',
        onEvent: (event) => events.push(event),
      });
      expect(result!.outcome).toBe('denied');
      expect(ran).toEqual([]);
      expect(events[0]).toMatchObject({ type: 'approval', body: { decision: 'deny' } });
      expect((events[0] as { body: ToolApprovalBody }).body.reason).toMatch(
        /policy failed: policy bug|not a verdict/,
      );
    }
  });

  it('refuses an approval timeout that is not a positive number', () => {
    expect(() => createToolRuntime({ cwd, tools, approvalTimeoutMs: 0 })).toThrow(
      /approvalTimeoutMs must be a positive number/,
    );
  });
});
