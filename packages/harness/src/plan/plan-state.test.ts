import { UpdatePlanArgumentsSchema } from '@spine/protocol';
import { createMemoryStore, Session } from '@spine/session-log';
import { createToolRuntime, defineTool } from '@spine/tool-runtime';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentProjections } from '../history/projections.js';
import { latestPlan, PLAN_STATE, type PlanState, planContext, renderPlan } from './plan-state.js';
import { createUpdatePlanTool } from './plan-tool.js';

const STATUS = fc.constantFrom('pending', 'in_progress', 'completed') as fc.Arbitrary<
  'pending' | 'in_progress' | 'completed'
>;
const STEPS = fc.array(
  fc.record({ step: fc.string({ minLength: 1, maxLength: 40 }), status: STATUS }),
  {
    minLength: 0,
    maxLength: 8,
  },
);

/** Runs `update_plan` through a real tool runtime and records its call and result in `session`. */
async function updatePlan(session: Session, id: string, args: unknown) {
  const runtime = createToolRuntime({
    cwd: process.cwd(),
    tools: [createUpdatePlanTool(defineTool)],
    approval: 'plan',
  });
  session.append(
    'turn/start',
    {},
    { turn: session.events().filter((e) => e.type === 'turn/start').length + 1 },
  );
  const call = {
    type: 'tool-call' as const,
    id,
    name: 'update_plan',
    arguments: JSON.stringify(args),
  };
  session.append(
    'assistant/message',
    { content: [call], finishReason: 'tool-calls' },
    { surfaceOp: { op: 'append' } },
  );
  const [result] = await runtime.run([call]);
  const body = {
    toolCallId: id,
    toolName: 'update_plan',
    content: result!.content,
    isError: result!.isError,
    ...(result!.meta ? { meta: result!.meta } : {}),
  };
  session.append('tool/result', body, { surfaceOp: { op: 'append' } });
  session.append('turn/end', { reason: 'completed', steps: 1 });
  return result!;
}

describe('update_plan and the current plan', () => {
  it('accepts exactly the plans with at most one step in progress (zod), and says why not', async () => {
    const tool = createUpdatePlanTool(defineTool);
    await fc.assert(
      fc.asyncProperty(STEPS, async (plan) => {
        const runtime = createToolRuntime({ cwd: process.cwd(), tools: [tool], approval: 'plan' });
        const [result] = await runtime.run([
          { type: 'tool-call', id: 'c', name: 'update_plan', arguments: JSON.stringify({ plan }) },
        ]);
        const valid = UpdatePlanArgumentsSchema.safeParse({ plan }).success;
        const inProgress = plan.filter((item) => item.status === 'in_progress').length;
        const blank = plan.some((item) => item.step.trim() === '');
        expect(valid).toBe(plan.length > 0 && inProgress <= 1 && !blank);
        expect(result!.isError).toBe(!valid);
        if (!valid && plan.length > 0 && inProgress > 1 && !blank)
          expect(result!.content).toContain('at most one step may be in_progress');
      }),
      { numRuns: 60 },
    );
  });

  it('projects the latest valid plan and brings it back as runtime context after a compaction', async () => {
    const session = await Session.create({
      store: createMemoryStore(),
      id: 'plan',
      cwd: process.cwd(),
      projections: await agentProjections(),
    });
    const context = planContext(session);
    expect(context()).toEqual({ plan: undefined });
    const first = [
      { step: 'Read src/add.js', status: 'completed' },
      { step: 'Fix the operator', status: 'in_progress' },
      { step: 'Run the tests', status: 'pending' },
    ];
    await updatePlan(session, 'p1', { plan: first });
    const refused = await updatePlan(session, 'p2', {
      plan: [
        { step: 'a', status: 'in_progress' },
        { step: 'b', status: 'in_progress' },
      ],
    });
    expect(refused.isError).toBe(true);
    const state = session.projection<PlanState>(PLAN_STATE.name);
    expect(state.steps).toEqual(first);
    expect(latestPlan(session.events()).steps).toEqual(first);
    // On the surface: the model sees the result itself, no context.
    expect(context()).toEqual({ plan: undefined });
    const surface = session.surface();
    session.append(
      'user/message',
      { content: 'summary of the work so far', source: 'compact-checkpoint' },
      { surfaceOp: { op: 'replace', start: surface[0]!, end: surface.at(-1)! } },
    );
    const text = context().plan;
    expect(text).toBe(renderPlan(first as never));
    expect(text).toBe(
      'plan (1/3 done)\n[x] Read src/add.js\n[>] Fix the operator\n[ ] Run the tests',
    );
  });
});
