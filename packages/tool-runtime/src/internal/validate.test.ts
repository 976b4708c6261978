import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolCallPart, ToolRunEvent } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makeTempDir } from '../../test/helpers.js';
import { defineTool } from '../define-tool.js';
import { createToolRuntime } from '../runtime.js';
import { createWorkspaceTools } from '../workspace-tools.js';
import { MAX_ARGUMENT_DEPTH, nestsDeeperThan } from './validate.js';

/** The plain recursive definition the iterative check must agree with (top-level object = 1). */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const items = Array.isArray(value) ? value : Object.values(value);
  let deepest = 0;
  for (const item of items) deepest = Math.max(deepest, depthOf(item));
  return 1 + deepest;
}

/** Any JSON value wrapped in 0–45 random layers of arrays and objects: depths around the limit. */
const nestedJson = fc
  .tuple(
    fc.jsonValue({ maxDepth: 4 }),
    fc.array(fc.oneof(fc.constant('array'), fc.string({ maxLength: 3 })), { maxLength: 45 }),
  )
  .map(([inner, layers]) =>
    layers.reduce<unknown>(
      (value, layer) => (layer === 'array' ? [1, value] : { [layer]: value, k: 'v' }),
      inner,
    ),
  );

describe('argument depth: arguments nesting deeper than the limit never reach a tool', () => {
  it('agrees with the recursive depth on any JSON value, for any limit', () => {
    fc.assert(
      fc.property(nestedJson, fc.integer({ min: 0, max: 48 }), (value, limit) => {
        expect(nestsDeeperThan(value, limit)).toBe(depthOf(value) > limit);
      }),
      { numRuns: 400 },
    );
  });

  it('refuses deep arguments as invalid before hooks, approval or execution, and runs the rest', async () => {
    let executed = 0;
    let hooked = 0;
    const probe = defineTool({
      name: 'probe',
      description: 'counts its runs',
      parameters: z.object({ x: z.unknown().optional() }),
      execute: async () => {
        executed += 1;
        return { content: 'ran' };
      },
    });
    const runtime = createToolRuntime({
      cwd: process.cwd(),
      tools: [probe],
      approval: 'ask',
      hooks: {
        preExecute: [
          () => {
            hooked += 1;
            return undefined;
          },
        ],
      },
    });
    let id = 0;
    await fc.assert(
      fc.asyncProperty(nestedJson, async (x) => {
        executed = 0;
        hooked = 0;
        const events: ToolRunEvent[] = [];
        const args = { x };
        const call: ToolCallPart = {
          type: 'tool-call',
          id: `call_${++id}`,
          name: 'probe',
          arguments: JSON.stringify(args),
        };
        const [result] = await runtime.run([call], {
          approve: async () => 'once',
          onEvent: (event) => events.push(event),
        });
        if (depthOf(args) > MAX_ARGUMENT_DEPTH) {
          expect(result).toMatchObject({ isError: true, outcome: 'invalid' });
          expect(result?.content).toMatch(/nest deeper than 32 levels/);
          // The refusal is recordable: it does not carry the arguments.
          expect(result?.meta?.params).toBeUndefined();
          expect({ executed, hooked, events: events.map((e) => e.type) }).toEqual({
            executed: 0,
            hooked: 0,
            events: ['result'],
          });
        } else {
          expect(result).toMatchObject({ content: 'ran' });
          expect(executed).toBe(1);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('refuses 100,000 levels without overflowing the stack', async () => {
    const { dir } = makeTempDir();
    const runtime = createToolRuntime({
      cwd: dir,
      tools: createWorkspaceTools({ cwd: dir }),
      approval: 'never-ask',
    });
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(nestsDeeperThan(JSON.parse(deep), MAX_ARGUMENT_DEPTH)).toBe(true);
    const [result] = await runtime.run([
      {
        type: 'tool-call',
        id: 'call_deep',
        name: 'write',
        arguments: `{"path":"never.txt","content":"x","x":${deep}}`,
      },
    ]);
    expect(result).toMatchObject({ isError: true, outcome: 'invalid' });
    expect(existsSync(join(dir, 'never.txt'))).toBe(false);
  });
});
