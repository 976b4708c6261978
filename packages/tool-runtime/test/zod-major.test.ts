import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { defineTool, InvalidToolDefinitionError } from '../src/index.js';

// zod 4 ships the zod 3 API as `zod/v3`: these are real zod 3 schemas, as an adopter with zod 3
// installed would pass them.
describe('defineTool with the wrong zod major', () => {
  it('names zod 3 and the supported range instead of a misleading JSON Schema error', () => {
    let caught: unknown;
    try {
      defineTool({
        name: 'echo',
        description: 'Returns its text.',
        parameters: z3.object({ text: z3.string() }) as never,
        execute: async () => ({ content: '' }),
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidToolDefinitionError);
    expect(String((caught as Error).message)).toMatch(/zod 3 schema.*zod 4.*\^4\.0\.0/);
  });

  it('accepts the same schema written with zod 4', () => {
    const tool = defineTool({
      name: 'echo',
      description: 'Returns its text.',
      parameters: z.object({ text: z.string() }),
      execute: async ({ text }) => ({ content: text }),
    });
    expect(tool.spec.parameters).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
  });
});
