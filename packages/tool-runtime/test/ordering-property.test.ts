import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createToolRuntime, defineTool } from '../src/index.js';

describe('ordering under random durations (property)', () => {
  it('commits every batch in call order, and barriers never overlap anything', async () => {
    const log: Array<{ tag: string; at: 'start' | 'end' }> = [];
    let active = 0;
    const overlaps: string[] = [];
    const make = (name: string, safe: boolean) =>
      defineTool<{ tag: string; ms: number }>({
        name,
        description: name,
        parameters: {
          type: 'object',
          properties: { tag: { type: 'string' }, ms: { type: 'number' } },
          required: ['tag', 'ms'],
        },
        isConcurrencySafe: safe,
        execute: async ({ tag, ms }) => {
          active++;
          if (!safe && active > 1) overlaps.push(tag);
          log.push({ tag, at: 'start' });
          await new Promise((resolve) => setTimeout(resolve, ms));
          if (!safe && active > 1) overlaps.push(tag);
          log.push({ tag, at: 'end' });
          active--;
          return { content: tag };
        },
      });
    const runtime = createToolRuntime({
      cwd: process.cwd(),
      tools: [make('safe', true), make('barrier', false)],
      approval: 'never-ask',
      maxConcurrency: 4,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ safe: fc.boolean(), ms: fc.integer({ min: 0, max: 8 }) }), {
          minLength: 1,
          maxLength: 12,
        }),
        async (plan) => {
          log.length = 0;
          overlaps.length = 0;
          const calls = plan.map((step, i) => ({
            type: 'tool-call' as const,
            id: `p${i}`,
            name: step.safe ? 'safe' : 'barrier',
            arguments: JSON.stringify({ tag: String(i), ms: step.ms }),
          }));
          const committed: string[] = [];
          const results = await runtime.run(calls, {
            onEvent: (event) => event.type === 'result' && committed.push(event.body.toolCallId),
          });
          expect(committed).toEqual(calls.map((call) => call.id));
          expect(results.map((result) => result.content)).toEqual(plan.map((_, i) => String(i)));
          expect(overlaps).toEqual([]);
          // Nothing after a barrier starts before it ends; nothing before it is still running when it starts.
          plan.forEach((step, i) => {
            if (step.safe) return;
            const start = log.findIndex((entry) => entry.tag === String(i) && entry.at === 'start');
            const end = log.findIndex((entry) => entry.tag === String(i) && entry.at === 'end');
            for (let j = 0; j < plan.length; j++) {
              if (j === i) continue;
              const otherStart = log.findIndex(
                (entry) => entry.tag === String(j) && entry.at === 'start',
              );
              const otherEnd = log.findIndex(
                (entry) => entry.tag === String(j) && entry.at === 'end',
              );
              if (j < i) expect(otherEnd).toBeLessThan(start);
              else expect(otherStart).toBeGreaterThan(end);
            }
          });
        },
      ),
      { numRuns: 40 },
    );
  });
});
