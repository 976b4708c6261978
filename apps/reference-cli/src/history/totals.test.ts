import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SESSION_TOTALS, sessionTotals, usageWithChildren, withChildUsage } from '@spine/harness';
import {
  type AssistantMessageBody,
  promptTokensOf,
  type SessionEvent,
  type Usage,
} from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { totalUsage } from '@spine/tui';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';

// The whole-history scans the projection replaces, as they were.
function lastRequestModel(events: readonly SessionEvent[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as SessionEvent;
    if (event.type !== 'request/header') continue;
    const { provider, model } = event.body as { provider?: string; model?: string };
    return provider && model ? `${provider}/${model}` : undefined;
  }
  return undefined;
}
function lastTurnEnd(events: readonly SessionEvent[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as SessionEvent<{ reason?: string }>;
    if (event.type === 'turn/end') return event.body.reason;
  }
  return undefined;
}
function reportedContext(events: readonly SessionEvent[]): number | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as SessionEvent;
    if (event.type === 'compaction/end') break;
    if (event.type !== 'assistant/message') continue;
    const usage = (event.body as AssistantMessageBody).usage;
    if (usage) return promptTokensOf(usage) + usage.outputTokens;
    break;
  }
  return undefined;
}

const usage = fc.record(
  {
    inputTokens: fc.nat(10_000),
    cacheReadTokens: fc.nat(10_000),
    cacheWriteTokens: fc.nat(10_000),
    outputTokens: fc.nat(10_000),
    reasoningTokens: fc.nat(1000),
    costUsd: fc.double({ min: 0, max: 3, noNaN: true }),
  },
  { requiredKeys: ['inputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'outputTokens'] },
);
const drawn = fc.oneof(
  fc.record({
    type: fc.constant('assistant/message'),
    body: fc.record(
      { content: fc.constant([]), finishReason: fc.constant('stop'), usage },
      { requiredKeys: ['content', 'finishReason'] },
    ),
  }),
  fc.record({
    type: fc.constant('agent/child/end'),
    body: fc.record({ usage }, { requiredKeys: [] }),
  }),
  fc.record({
    type: fc.constant('request/header'),
    body: fc.record(
      {
        provider: fc.constantFrom('deepseek', 'anthropic', ''),
        model: fc.constantFrom('m1', 'm2', ''),
      },
      { requiredKeys: [] },
    ),
  }),
  fc.record({
    type: fc.constantFrom('turn/end', 'turn/start', 'compaction/end', 'tool/result'),
    body: fc.constant({}),
  }),
  fc.record({
    type: fc.constant('turn/end'),
    body: fc.record({ reason: fc.constantFrom('completed', 'aborted', 'max-steps') }),
  }),
);

describe('the session totals projection', () => {
  it('gives what the whole-history scans gave, for any events', () => {
    fc.assert(
      fc.property(fc.array(drawn, { maxLength: 40 }), usage, (list, agentUsage) => {
        const events = list.map(
          ({ type, body }, index) => ({ seq: index + 1, type, at: 'x', body }) as SessionEvent,
        );
        let state = SESSION_TOTALS.initial();
        for (const event of events) state = SESSION_TOTALS.apply(state, event);
        const totals = state as unknown as ReturnType<typeof sessionTotals>;
        expect(usageWithChildren(totals.own, totals)).toEqual(
          withChildUsage(totalUsage(events), events),
        );
        expect(usageWithChildren(agentUsage as Usage, totals)).toEqual(
          withChildUsage(agentUsage as Usage, events),
        );
        expect(totals.turns).toBe(events.filter((event) => event.type === 'turn/end').length);
        expect(totals.model ?? undefined).toBe(lastRequestModel(events));
        expect(totals.lastTurnEnd ?? undefined).toBe(lastTurnEnd(events));
        expect(totals.context ?? undefined).toBe(reportedContext(events));
        // Through a snapshot (JSON) and on: the same figures.
        const restored = JSON.parse(JSON.stringify(state));
        expect(restored).toEqual(JSON.parse(JSON.stringify(totals)));
      }),
      { numRuns: 300 },
    );
  });

  const dir = mkdtempSync(join(tmpdir(), 'totals-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is restored from a snapshot by a lazy open, equal to a full fold', async () => {
    const store = createJsonlStore({ dir, fsync: 'never' });
    const session = await Session.create({ store, projections: [SESSION_TOTALS] });
    const reply = (turn: number, tokens: number): void => {
      session.append('turn/start', {}, { turn });
      session.append(
        'assistant/message',
        {
          content: [{ type: 'text', text: `answer ${turn}` }],
          finishReason: 'stop',
          usage: {
            inputTokens: tokens,
            cacheReadTokens: 3,
            cacheWriteTokens: 0,
            outputTokens: 7,
            costUsd: tokens / 1e6,
          },
        },
        { turn, step: 1, surfaceOp: { op: 'append' } },
      );
      session.append('turn/end', { reason: 'completed' }, { turn });
    };
    for (let turn = 1; turn <= 30; turn++) reply(turn, 100 + turn);
    await session.snapshot();
    for (let turn = 31; turn <= 33; turn++) reply(turn, 100 + turn);
    await session.close();
    const full = await Session.open({ store, id: session.id, readOnly: true });
    const lazy = await Session.open({
      store,
      id: session.id,
      readOnly: true,
      history: 'lazy',
      projections: [SESSION_TOTALS],
    });
    try {
      expect(lazy.events().length).toBeLessThan(full.events().length);
      const expected = sessionTotals(full); // not registered: folded over every event
      expect(sessionTotals(lazy)).toEqual(expected);
      expect(expected.turns).toBe(33);
      expect(expected.context).toBe(133 + 3 + 7);
      // A lazy session without the projection cannot fold it from what it holds: it says so.
      const bare = await Session.open({ store, id: session.id, readOnly: true, history: 'lazy' });
      expect(() => sessionTotals(bare)).toThrow(/projections: \[SESSION_TOTALS\]/);
      await bare.close();
    } finally {
      await full.close();
      await lazy.close();
    }
  });
});
