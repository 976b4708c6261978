import type { SessionEvent } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answer, newSession, propose, reply, say } from '../test/history.js';
import { selectCompactableRange, validateSurfaceRegion } from './region.js';

type Step =
  | { kind: 'user'; words: number }
  | { kind: 'text'; words: number }
  | { kind: 'batch'; calls: number; answered: boolean };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), words: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant('text' as const), words: fc.integer({ min: 1, max: 40 }) }),
  fc.record({
    kind: fc.constant('batch' as const),
    calls: fc.integer({ min: 1, max: 4 }),
    answered: fc.boolean(),
  }),
);

/** Builds plain surface events for a history; only the last batch may stay unanswered. */
function eventsOf(steps: readonly Step[]): SessionEvent[] {
  const events: SessionEvent[] = [];
  let seq = 1;
  let callId = 0;
  const push = (type: string, body: unknown): void => {
    events.push({ seq: seq++, type, at: '', body });
  };
  steps.forEach((step, index) => {
    if (step.kind === 'user')
      push('user/message', { content: 'u '.repeat(step.words), source: 'user' });
    else if (step.kind === 'text') {
      push('assistant/message', {
        content: [{ type: 'text', text: 'a '.repeat(step.words) }],
        finishReason: 'stop',
      });
    } else {
      const ids = Array.from({ length: step.calls }, () => `call_${callId++}`);
      push('assistant/message', {
        content: ids.map((id) => ({ type: 'tool-call', id, name: 'read', arguments: '{}' })),
        finishReason: 'tool-calls',
      });
      const last = index === steps.length - 1;
      const answeredCount = step.answered || !last ? ids.length : Math.floor(ids.length / 2);
      for (const id of ids.slice(0, answeredCount)) {
        push('tool/result', { toolCallId: id, toolName: 'read', content: 'r', isError: false });
      }
    }
  });
  return events;
}

const countEvent = (event: SessionEvent): number => JSON.stringify(event.body).length / 4;

describe('selectCompactableRange', () => {
  it('never splits a tool-call/result pair or enters an unanswered batch (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(stepArbitrary, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 0, max: 400 }),
        (steps, keep) => {
          const events = eventsOf(steps);
          const region = selectCompactableRange(events, { countEvent, keepRecentTokens: keep });
          if (!region) return;
          const check = validateSurfaceRegion(events, region);
          expect(check).toMatchObject({ ok: true, startIndex: 0 });
          if (!check.ok) return;
          const lastAssistant = events.map((event) => event.type).lastIndexOf('assistant/message');
          // The latest step (or, without any, the last event) always stays on the surface.
          expect(check.endIndex).toBeLessThan(
            lastAssistant >= 0 ? lastAssistant : events.length - 1,
          );
        },
      ),
      { numRuns: 400 },
    );
  });

  it('agrees with a brute-force pair check on every region of random histories (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(stepArbitrary, { minLength: 1, maxLength: 25 }), (steps) => {
        const events = eventsOf(steps);
        for (let start = 0; start < events.length; start++) {
          for (let end = start; end < events.length; end++) {
            const inside = events.slice(start, end + 1);
            const calls = new Set<string>();
            const results = new Set<string>();
            for (const event of inside) {
              const body = event.body as { content?: unknown; toolCallId?: string };
              if (event.type === 'tool/result') results.add(body.toolCallId as string);
              if (event.type === 'assistant/message') {
                for (const part of body.content as { type: string; id?: string }[]) {
                  if (part.type === 'tool-call') calls.add(part.id as string);
                }
              }
            }
            const expected =
              [...calls].every((id) => results.has(id)) &&
              [...results].every((id) => calls.has(id));
            const check = validateSurfaceRegion(events, {
              start: (events[start] as SessionEvent).seq,
              end: (events[end] as SessionEvent).seq,
            });
            expect(check.ok).toBe(expected);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('keeps the latest step and as much recent context as the budget allows', () => {
    const events = eventsOf([
      { kind: 'user', words: 10 },
      { kind: 'batch', calls: 2, answered: true },
      { kind: 'text', words: 10 },
      { kind: 'user', words: 10 },
      { kind: 'batch', calls: 1, answered: true },
    ]);
    const minimal = selectCompactableRange(events, { countEvent, keepRecentTokens: 0 });
    expect(minimal).toEqual({ start: 1, end: 6 });
    const generous = selectCompactableRange(events, { countEvent, keepRecentTokens: 10_000 });
    expect(generous).toBeUndefined();
  });

  it('returns nothing when the only history is one unanswered batch', () => {
    const events = eventsOf([
      { kind: 'user', words: 3 },
      { kind: 'batch', calls: 3, answered: false },
    ]);
    expect(selectCompactableRange(events, { countEvent })).toBeUndefined();
  });

  it('names the reason when a region is off the surface or splits a batch', () => {
    const events = eventsOf([
      { kind: 'user', words: 3 },
      { kind: 'batch', calls: 2, answered: true },
    ]);
    expect(validateSurfaceRegion(events, { start: 99, end: 100 })).toMatchObject({ ok: false });
    const split = validateSurfaceRegion(events, { start: 1, end: 3 });
    expect(split.ok).toBe(false);
    if (!split.ok) expect(split.reason).toContain('no result inside the region');
  });

  it('selects regions a real Session accepts as a replace, for random histories (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArbitrary, { minLength: 2, maxLength: 30 }),
        fc.integer({ min: 0, max: 300 }),
        async (steps, keep) => {
          const session = await newSession();
          for (const event of eventsOf(steps)) {
            session.append(event.type, event.body, { surfaceOp: { op: 'append' } });
          }
          const surface = session.surface().map((seq) => session.get(seq) as SessionEvent);
          const region = selectCompactableRange(surface, { countEvent, keepRecentTokens: keep });
          if (!region) return;
          const before = session.deriveMessages().messages.length;
          session.append(
            'user/message',
            { content: 'checkpoint', source: 'compact-checkpoint' },
            { surfaceOp: { op: 'replace', start: region.start, end: region.end } },
          );
          expect(session.deriveMessages().messages.length).toBeLessThan(before);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('selects regions that a real Session accepts as a replace', async () => {
    const session = await newSession();
    say(session, 'fix the parser', { turn: 1 });
    const call = { id: 'c1', name: 'read_file', args: { path: 'src/parser.ts' } };
    propose(session, [call], { turn: 1, step: 1 });
    answer(session, call, 'export function parse() {}', { turn: 1, step: 1 });
    reply(session, 'done', { turn: 1, step: 2 });
    say(session, 'now the lexer', { turn: 2 });
    const next = { id: 'c2', name: 'read_file', args: { path: 'src/lexer.ts' } };
    propose(session, [next], { turn: 2, step: 1 });
    const surface = session.surface().map((seq) => session.get(seq) as SessionEvent);
    const region = selectCompactableRange(surface, { countEvent });
    expect(region).toBeDefined();
    if (!region) return;
    session.append(
      'user/message',
      { content: '<compacted-summary>x</compacted-summary>', source: 'compact-checkpoint' },
      { surfaceOp: { op: 'replace', start: region.start, end: region.end } },
    );
    expect(session.deriveMessages().messages[0]).toMatchObject({ source: 'compact-checkpoint' });
  });
});
