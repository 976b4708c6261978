import type { SessionEvent } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentLoopProjections } from './projections.js';

const TYPES = [
  'agent/inbox/spliced',
  'user/message',
  'assistant/message',
  'assistant/attempt',
  'request/header',
  'prompt/system',
  'tools/defined',
  'tool/started',
  'tool/result',
  'turn/start',
  'turn/end',
  'step/start',
  'step/end',
];

/** Events of the folded types with any JSON body: a log edited by hand, or written by a bug. */
const hostileEvents = fc.array(
  fc.record({
    type: fc.constantFrom(...TYPES),
    body: fc.oneof(
      fc.jsonValue(),
      fc.record({
        queue: fc.constantFrom('next-turn', 'next-step', '__proto__', 'x'),
        start: fc.anything(),
        deleteCount: fc.anything(),
        insert: fc.oneof(fc.array(fc.jsonValue()), fc.jsonValue()),
      }),
      fc.record({ seqs: fc.jsonValue(), attempt: fc.jsonValue(), content: fc.jsonValue() }),
      fc.record({
        seqs: fc.record({
          base: fc.option(fc.integer()),
          keep: fc.option(fc.integer()),
          ranges: fc.array(fc.tuple(fc.integer(), fc.integer()), { maxLength: 3 }),
        }),
      }),
    ),
    turn: fc.option(fc.nat(5), { nil: undefined }),
    step: fc.option(fc.nat(5), { nil: undefined }),
  }),
  { maxLength: 40 },
);

describe('agentLoopProjections', () => {
  it('fold any body of their event types without throwing, into plain JSON (fast-check)', () => {
    fc.assert(
      fc.property(hostileEvents, (events) => {
        for (const projection of agentLoopProjections) {
          let state = projection.initial();
          for (const [index, event] of events.entries()) {
            const full = { ...event, seq: index + 2, at: '' } as SessionEvent;
            state = projection.apply(state, full);
          }
          expect(() => JSON.parse(JSON.stringify(state))).not.toThrow();
        }
      }),
      { numRuns: 300 },
    );
  });
});
