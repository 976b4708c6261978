import type { SessionEvent } from '@spine/protocol';
import { childLinks } from '@spine/subagents';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { interruptedFrom, RESUME_STATE, type ResumeState } from './resume-state.js';

const AT = '2026-12-01T12:00:00.000Z';

function fold(events: readonly SessionEvent[]): ResumeState {
  let state = RESUME_STATE.initial();
  for (const event of events) {
    if (RESUME_STATE.types?.includes(event.type)) state = RESUME_STATE.apply(state, event);
  }
  return state;
}

/** What resume streamed the whole log for before: the step of the earliest unanswered call. */
function streamedStepStart(events: readonly SessionEvent[]): number | undefined {
  const open = new Map<string, number>();
  let stepStart = 1;
  for (const event of events) {
    const { toolCallId } = event.body as { toolCallId: string };
    if (event.type === 'step/start') stepStart = event.seq;
    else if (event.type === 'tool/started') open.set(toolCallId, stepStart);
    else if (event.type === 'tool/result') open.delete(toolCallId);
  }
  return open.size > 0 ? Math.min(...open.values()) : undefined;
}

const header = {
  seq: 1,
  type: 'session/header',
  at: AT,
  body: { formatVersion: 1, sessionId: 'p', createdAt: AT },
} as SessionEvent;

function eventsOf(steps: Array<{ type: string; id: string }>): SessionEvent[] {
  return steps.map(
    ({ type, id }, index) =>
      ({
        seq: index + 2,
        type,
        at: AT,
        body: { sessionId: id, toolCallId: `call-${id}`, reason: 'completed' },
      }) as SessionEvent,
  );
}

describe('RESUME_STATE', () => {
  it('has open children exactly when childLinks finds a child without its end', () => {
    const step = fc.record({
      type: fc.constantFrom('agent/child/start', 'agent/child/end', 'turn/start'),
      id: fc.constantFrom('a', 'b', 'c'),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 14 }), (generated) => {
        // A child session id is started once (ids are unique per child); ends may repeat.
        const started = new Set<string>();
        const steps = generated.filter(
          (step) =>
            step.type !== 'agent/child/start' ||
            (!started.has(step.id) && started.add(step.id) !== undefined),
        );
        const events = eventsOf(steps);
        const orphans = childLinks([header, ...events]).some((link) => !link.end);
        expect(fold(events).children.length > 0).toBe(orphans);
      }),
      { numRuns: 500 },
    );
  });

  it('names the step of the earliest unanswered started call, as the streamed pass did', () => {
    const step = fc.record({
      type: fc.constantFrom('step/start', 'tool/started', 'tool/result', 'turn/start'),
      id: fc.constantFrom('a', 'b', 'c'),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 16 }), (steps) => {
        const events = eventsOf(steps);
        expect(interruptedFrom(fold(events))).toBe(streamedStepStart(events));
      }),
      { numRuns: 500 },
    );
  });

  it('stays as small as what is open, however many calls and children finished', () => {
    const steps: Array<{ type: string; id: string }> = [];
    for (let i = 0; i < 2_000; i++) {
      steps.push({ type: 'step/start', id: `${i}` }, { type: 'tool/started', id: `${i}` });
      steps.push({ type: 'tool/result', id: `${i}` }, { type: 'agent/child/start', id: `${i}` });
      steps.push({ type: 'agent/child/end', id: `${i}` });
    }
    expect(JSON.stringify(fold(eventsOf(steps))).length).toBeLessThan(100);
  });
});
