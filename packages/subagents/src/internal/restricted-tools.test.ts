import type { ToolCallPart, ToolResultBody } from '@spine/protocol';
import { createToolRuntime, defineTool } from '@spine/tool-runtime';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { restrictTools } from './restricted-tools.js';

/** Real tools on a real runtime: each waits a little (so results finish out of order), then echoes. */
const echo = (name: string) =>
  defineTool({
    name,
    description: `echo ${name}`,
    parameters: z.object({ ms: z.number().int().min(0).max(20) }),
    isConcurrencySafe: true,
    async execute({ ms }) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: `${name} done` };
    },
  });

describe('restrictTools', () => {
  it('hides tools outside the set and answers their calls in place, every result in call order', async () => {
    const runtime = createToolRuntime({
      cwd: process.cwd(),
      tools: [echo('alpha'), echo('beta'), echo('gamma')] as never[],
      approval: 'never-ask',
      sandboxBackend: null,
    });
    const restricted = restrictTools(runtime, new Set(['alpha', 'gamma']));
    expect(restricted.specs().map((spec) => spec.name)).toEqual(['alpha', 'gamma']);
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.constantFrom('alpha', 'beta', 'gamma', 'task'),
            fc.integer({ min: 0, max: 15 }),
          ),
          { minLength: 1, maxLength: 6 },
        ),
        async (specs) => {
          const calls: ToolCallPart[] = specs.map(([name, ms], index) => ({
            type: 'tool-call',
            id: `c${index}`,
            name,
            arguments: JSON.stringify({ ms }),
          }));
          const streamed: ToolResultBody[] = [];
          const results = await restricted.run(calls, {
            onEvent: (event) => {
              if (event.type === 'result') streamed.push(event.body);
            },
          });
          const ids = calls.map((call) => call.id);
          expect(results.map((r) => r.toolCallId)).toEqual(ids);
          expect(streamed.map((r) => r.toolCallId)).toEqual(ids);
          calls.forEach((call, index) => {
            const allowed = call.name === 'alpha' || call.name === 'gamma';
            expect(results[index]?.outcome).toBe(allowed ? 'ok' : 'not-found');
            if (!allowed)
              expect(results[index]?.content).toContain('not available to this subagent');
          });
        },
      ),
      { numRuns: 40 },
    );
  });
});
