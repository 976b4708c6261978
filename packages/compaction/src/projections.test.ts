import type { SessionEvent, SurfaceOp } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactionProjections } from './projections.js';

const TYPES = [
  'compaction/summary',
  'compaction/candidate',
  'compaction/end',
  'compaction/failed',
  'tool/output',
  'tool/result',
  'user/message',
  'prompt/system',
  'tools/defined',
  'request/header',
  'step/start',
  'turn/end',
];

/** Events of the folded types with any JSON body and any surface op or sources. */
const hostileEvents = fc.array(
  fc.record({
    type: fc.constantFrom(...TYPES),
    body: fc.oneof(
      fc.jsonValue(),
      fc.record({ facts: fc.jsonValue(), content: fc.jsonValue(), hash: fc.jsonValue() }),
      fc.record({ meta: fc.record({ originalSeq: fc.jsonValue() }) }),
    ),
    surfaceOp: fc.option(
      fc.oneof(
        fc.constant<SurfaceOp>({ op: 'append' }),
        fc.record({ op: fc.constant('replace' as const), start: fc.nat(30), end: fc.nat(30) }),
      ),
      { nil: undefined },
    ),
    sourceEventSeqs: fc.option(fc.array(fc.nat(30), { maxLength: 4 }), { nil: undefined }),
  }),
  { maxLength: 40 },
);

describe('compactionProjections', () => {
  it('fold any body of their event types without throwing, into plain JSON (fast-check)', () => {
    fc.assert(
      fc.property(hostileEvents, (events) => {
        for (const projection of compactionProjections) {
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
