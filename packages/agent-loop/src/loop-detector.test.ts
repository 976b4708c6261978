import type { SessionEvent } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LOOP_THRESHOLDS,
  detectLoops,
  type LoopFinding,
  type LoopThresholds,
} from './loop-detector.js';

/** One generated step: tool calls (name, arguments), their results, and an optional text. */
interface StepSpec {
  text?: string;
  calls: { name: string; args: unknown; result: string; isError?: boolean }[];
}

/** Builds the events one turn of `steps` appends, in the agent loop's order. */
function turnEvents(steps: readonly StepSpec[], turn = 1): SessionEvent[] {
  const events: SessionEvent[] = [];
  const at = '2026-12-06T00:00:00.000Z';
  const add = (type: string, body: unknown, step: number): void => {
    events.push({ seq: events.length + 1, type, at, turn, step, body });
  };
  add('turn/start', {}, 0);
  add('user/message', { content: 'do the task', source: 'user' }, 0);
  let id = 0;
  steps.forEach((spec, index) => {
    const step = index + 1;
    add('step/start', {}, step);
    const ids = spec.calls.map(() => `call_${++id}`);
    const content: unknown[] = [];
    if (spec.text !== undefined) content.push({ type: 'text', text: spec.text });
    spec.calls.forEach((call, i) => {
      const args = typeof call.args === 'string' ? call.args : JSON.stringify(call.args);
      content.push({ type: 'tool-call', id: ids[i], name: call.name, arguments: args });
    });
    add('assistant/message', { content, finishReason: 'tool-calls' }, step);
    spec.calls.forEach((call, i) => {
      add(
        'tool/result',
        {
          toolCallId: ids[i],
          toolName: call.name,
          content: call.result,
          isError: call.isError ?? false,
        },
        step,
      );
    });
    add('step/end', { toolCalls: spec.calls.length }, step);
  });
  return events;
}

/** The step (1-based) of each finding. */
function findingSteps(
  events: SessionEvent[],
  thresholds: Partial<LoopThresholds> = {},
): { step: number; finding: LoopFinding }[] {
  const out: { step: number; finding: LoopFinding }[] = [];
  const ends = events.filter((event) => event.type === 'step/end');
  const findings = detectLoops(events, thresholds);
  // detectLoops returns findings in step order; pair them with their step/end by re-running.
  let index = 0;
  for (const end of ends) {
    const upTo = events.filter((event) => event.seq <= end.seq);
    const count = detectLoops(upTo, thresholds).length;
    if (count > index) {
      out.push({ step: end.step ?? 0, finding: findings[index] as LoopFinding });
      index = count;
    }
  }
  return out;
}

const word = fc.stringMatching(/^[a-z]{2,9}$/);
const tools = fc.constantFrom('read', 'grep', 'bash', 'edit', 'write', 'web_fetch');

/** A turn of distinct progress: every call, result and answer differs from the others. */
const progressTurn = fc
  .array(
    fc.record({
      text: fc.option(fc.array(word, { minLength: 1, maxLength: 60 }), { nil: undefined }),
      calls: fc.array(fc.record({ name: tools, isError: fc.boolean(), words: fc.array(word) }), {
        minLength: 1,
        maxLength: 3,
      }),
    }),
    { minLength: 1, maxLength: 25 },
  )
  .map((steps): StepSpec[] => {
    let unique = 0;
    return steps.map((step) => ({
      ...(step.text ? { text: `step ${++unique}: ${step.text.join(' ')}` } : {}),
      calls: step.calls.map((call) => {
        const n = ++unique;
        return {
          name: call.name,
          args: { path: `src/file-${n}.ts`, note: call.words.join(' ') },
          result: `${call.isError ? 'error' : 'output'} ${n}: ${call.words.join(' ')}`,
          isError: call.isError,
        };
      }),
    }));
  });

/** A few distinct steps before a loop starts. */
const prefix = progressTurn.map((steps) => steps.slice(0, 4));

describe('LoopDetector', () => {
  it('never fires on generated turns of distinct progress', () => {
    fc.assert(
      fc.property(progressTurn, (steps) => {
        expect(detectLoops(turnEvents(steps))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('finds the same call repeated at its threshold, whatever the order of its argument keys', () => {
    fc.assert(
      fc.property(prefix, tools, fc.integer({ min: 2, max: 6 }), (before, name, threshold) => {
        const loop: StepSpec[] = Array.from({ length: threshold }, (_, i) => ({
          calls: [
            {
              name,
              args: i % 2 ? { b: 2, a: 'x' } : { a: 'x', b: 2 },
              result: `same output ${i}`,
            },
          ],
        }));
        const events = turnEvents([...before, ...loop]);
        const found = findingSteps(events, { repeatedCall: threshold });
        expect(found[0]?.finding).toMatchObject({ kind: 'repeated-call', count: threshold });
        expect(found[0]?.step).toBe(before.length + threshold);
      }),
      { numRuns: 60 },
    );
  });

  it('finds the same failing result repeated for different calls', () => {
    fc.assert(
      fc.property(prefix, tools, word, (before, name, message) => {
        const loop: StepSpec[] = [1, 2, 3].map((i) => ({
          calls: [{ name, args: { attempt: i }, result: `failed: ${message}`, isError: true }],
        }));
        const found = findingSteps(turnEvents([...before, ...loop]));
        expect(found[0]?.finding.kind).toBe('repeated-error');
        expect(found[0]?.step).toBe(before.length + 3);
        expect(found[0]?.finding.evidence).toHaveLength(3);
      }),
      { numRuns: 60 },
    );
  });

  it('finds two calls alternating for three cycles', () => {
    fc.assert(
      fc.property(prefix, (before) => {
        // Results differ each time (a clock in the output): only the calls alternate.
        const loop: StepSpec[] = Array.from({ length: 6 }, (_, i) => ({
          calls: [
            i % 2 === 0
              ? { name: 'read', args: { path: 'a.ts' }, result: `a at ${i}` }
              : { name: 'bash', args: { command: 'npm test' }, result: `b at ${i}` },
          ],
        }));
        const found = findingSteps(turnEvents([...before, ...loop]));
        expect(found[0]?.finding).toMatchObject({ kind: 'alternating-calls', count: 3 });
        expect(found[0]?.step).toBe(before.length + 6);
      }),
      { numRuns: 60 },
    );
  });

  it('finds a paragraph repeated within one answer and an answer repeated across steps', () => {
    fc.assert(
      fc.property(
        prefix,
        fc.array(word, { minLength: 24, maxLength: 40 }),
        (before, paragraphWords) => {
          const paragraph = paragraphWords.join(' ');
          const within = turnEvents([
            ...before,
            {
              text: `${paragraph}\n\n${paragraph}\n\n${paragraph}`,
              calls: [{ name: 'read', args: { path: 'x' }, result: 'x' }],
            },
          ]);
          const first = findingSteps(within)[0];
          expect(first?.finding.kind).toBe('repeated-text');
          expect(first?.step).toBe(before.length + 1);
          const across: StepSpec[] = [1, 2, 3].map((i) => ({
            text: paragraph,
            calls: [{ name: 'read', args: { path: `f${i}` }, result: `content ${i}` }],
          }));
          const found = findingSteps(turnEvents([...before, ...across]));
          expect(found[0]?.finding.kind).toBe('repeated-text');
          expect(found[0]?.step).toBe(before.length + 3);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('finds steps that bring no new tool result', () => {
    fc.assert(
      fc.property(prefix, (before) => {
        const cycle = ['a', 'b', 'c'];
        const loop: StepSpec[] = Array.from({ length: 6 }, (_, i) => ({
          calls: [
            {
              name: 'read',
              args: { path: `${cycle[i % 3]}.ts` },
              result: `${cycle[i % 3]} content`,
            },
          ],
        }));
        const found = findingSteps(turnEvents([...before, ...loop]));
        expect(found[0]?.finding).toMatchObject({ kind: 'no-progress', count: 3 });
        expect(found[0]?.step).toBe(before.length + 6);
      }),
      { numRuns: 60 },
    );
  });

  it('starts afresh with each turn and with input from a person', () => {
    const same: StepSpec = { calls: [{ name: 'bash', args: { command: 'ls' }, result: 'a' }] };
    const first = turnEvents([same, same], 1);
    const second = turnEvents([same], 2).map((event, i) => ({
      ...event,
      seq: first.length + i + 1,
    }));
    expect(detectLoops([...first, ...second])).toEqual([]);
    const interrupted = turnEvents([same, same, same]);
    const at = interrupted.findIndex((event) => event.type === 'step/start' && event.step === 3);
    interrupted.splice(at, 0, {
      seq: 0,
      type: 'user/message',
      at: '2026-12-06T00:00:00.000Z',
      turn: 1,
      step: 3,
      body: { content: 'try ls once more', source: 'user' },
    });
    expect(detectLoops(interrupted)).toEqual([]);
    expect(detectLoops(turnEvents([same, same, same]))).toHaveLength(1);
  });

  it('uses the default thresholds unless told otherwise', () => {
    expect(DEFAULT_LOOP_THRESHOLDS).toMatchObject({ repeatedCall: 3, stopAfter: 2 });
    const same: StepSpec = { calls: [{ name: 'bash', args: { command: 'ls' }, result: 'a' }] };
    expect(detectLoops(turnEvents([same, same]), { repeatedCall: 2 })[0]?.kind).toBe(
      'repeated-call',
    );
    expect(detectLoops(turnEvents([same, same]))).toEqual([]);
  });
});
