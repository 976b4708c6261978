import { createMemoryStore, Session } from '@spine/session-log';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentProjections } from '../history/projections.js';
import { assertBudgetPriced, budgetExceeded, createBudgetCheck } from './budget.js';

const usage = (tokens: number, costUsd?: number) => ({
  inputTokens: tokens,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
  ...(costUsd === undefined ? {} : { costUsd }),
});

/** Records one turn in which the model used `tokens` tokens costing `cost`. */
function turn(session: Session, number: number, tokens: number, cost: number): void {
  session.append('turn/start', {}, { turn: number });
  session.append(
    'assistant/message',
    { content: [{ type: 'text', text: 'ok' }], finishReason: 'stop', usage: usage(tokens, cost) },
    { turn: number, step: 1, surfaceOp: { op: 'append' } },
  );
  session.append('turn/end', { reason: 'completed', steps: 1 }, { turn: number, step: 1 });
}

describe('budgets', () => {
  it('stops exactly when spent reaches a limit, and says what was spent', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 10_000 }),
        fc.option(fc.nat({ max: 10_000 }), { nil: undefined }),
        fc.option(fc.double({ min: 0, max: 10, noNaN: true }), { nil: undefined }),
        fc.option(fc.double({ min: 0, max: 10, noNaN: true }), { nil: undefined }),
        (tokens, maxTokens, cost, maxCost) => {
          const verdict = budgetExceeded('session', usage(tokens, cost), {
            tokens: maxTokens,
            cost: maxCost,
          });
          const overCost = maxCost !== undefined && cost !== undefined && cost >= maxCost;
          const overTokens = maxTokens !== undefined && tokens >= maxTokens;
          expect(verdict !== undefined).toBe(overCost || overTokens);
          if (verdict) {
            expect(verdict.limit).toBe(overCost ? 'cost' : 'tokens');
            expect(verdict.message).toContain('spent');
          }
        },
      ),
    );
  });

  it('counts session limits over all turns and turn limits from the turn start', async () => {
    const session = await Session.create({
      store: createMemoryStore(),
      id: 'budget',
      cwd: process.cwd(),
      projections: await agentProjections(),
    });
    const check = createBudgetCheck(session, { maxTurnTokens: 150, maxTokens: 400 });
    expect(check({ turn: 1 })).toBeUndefined();
    turn(session, 1, 100, 0.01);
    expect(check({ turn: 1 })).toBeUndefined();
    turn(session, 2, 100, 0.01); // same check's turn 1 now sees 200 since its start
    expect(check({ turn: 1 })).toMatchObject({ scope: 'turn', limit: 'tokens', spent: 200 });
    expect(check({ turn: 3 })).toBeUndefined(); // a new turn starts from zero
    turn(session, 3, 250, 0.01);
    expect(check({ turn: 3 })).toMatchObject({ scope: 'session', limit: 'tokens', spent: 450 });
  });

  it('refuses a cost limit on an unpriced model unless a token limit bounds it', () => {
    expect(() => assertBudgetPriced({ maxCost: 1 }, 'x/y', false)).toThrow(
      /has none in the model table/,
    );
    expect(() => assertBudgetPriced({ maxCost: 1, maxTokens: 5 }, 'x/y', false)).not.toThrow();
    expect(() => assertBudgetPriced({ maxCost: 1 }, 'x/y', true)).not.toThrow();
  });
});
