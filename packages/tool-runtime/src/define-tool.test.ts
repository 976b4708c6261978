import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { InvalidToolDefinitionError } from './errors.js';
import { describeErrors } from './internal/validate.js';
import { createToolRuntime } from './runtime.js';

describe('defineTool', () => {
  it('exports a zod schema to JSON Schema for the model, with defaulted fields optional', () => {
    const tool = defineTool({
      name: 'search_files',
      description: 'search',
      parameters: z.object({
        query: z.string().describe('what to find'),
        limit: z.number().int().default(10),
      }),
      execute: async () => ({ content: '' }),
    });
    expect(tool.spec.parameters).toMatchObject({
      type: 'object',
      properties: {
        query: { type: 'string', description: 'what to find' },
        limit: { type: 'integer', default: 10 },
      },
      required: ['query'],
    });
    expect(tool.spec.parameters).not.toHaveProperty('$schema');
  });

  it('accepts a raw JSON Schema and applies its defaults before execute', async () => {
    let seen: unknown;
    const tool = defineTool<{ n: number }>({
      name: 'raw',
      description: 'raw schema',
      parameters: { type: 'object', properties: { n: { type: 'number', default: 7 } } },
      execute: async (args) => {
        seen = args;
        return { content: 'ok' };
      },
    });
    const runtime = createToolRuntime({ cwd: process.cwd(), tools: [tool], approval: 'never-ask' });
    await runtime.run([{ type: 'tool-call', id: '1', name: 'raw', arguments: '{}' }]);
    expect(seen).toEqual({ n: 7 });
  });

  it('refuses bad names, non-object schemas, schemas that do not compile, and duplicates', () => {
    const execute = async () => ({ content: '' });
    expect(() =>
      defineTool({ name: 'has space', description: '', parameters: { type: 'object' }, execute }),
    ).toThrow(InvalidToolDefinitionError);
    expect(() =>
      defineTool({ name: 'x', description: '', parameters: { type: 'string' }, execute }),
    ).toThrow(/type "object"/);
    expect(() =>
      defineTool({
        name: 'x',
        description: '',
        parameters: { type: 'object', properties: { a: { type: 'nonsense' } } },
        execute,
      }),
    ).toThrow(/does not compile/);
    const untyped = { properties: { a: { type: 'string' } } };
    expect(
      defineTool({ name: 'untyped', description: '', parameters: untyped, execute }).spec.name,
    ).toBe('untyped');
    const tool = defineTool({
      name: 'x',
      description: '',
      parameters: { type: 'object' },
      execute,
    });
    expect(() => createToolRuntime({ cwd: process.cwd(), tools: [tool, tool] })).toThrow(
      /already registered/,
    );
  });

  it('names nested fields in validation messages', async () => {
    const tool = defineTool({
      name: 'nested',
      description: 'nested',
      parameters: z
        .object({
          edits: z.array(z.object({ oldText: z.string(), mode: z.enum(['a', 'b']) })).min(1),
        })
        .strict(),
      execute: async () => ({ content: '' }),
    });
    const runtime = createToolRuntime({ cwd: process.cwd(), tools: [tool], approval: 'never-ask' });
    const [result] = await runtime.run([
      {
        type: 'tool-call',
        id: '1',
        name: 'nested',
        arguments: '{"edits":[{"oldText":3,"mode":"c"}],"junk":1}',
      },
    ]);
    expect(result!.outcome).toBe('invalid');
    expect(result!.content).toContain('`edits[0].oldText` must be string');
    expect(result!.content).toContain('`edits[0].mode` must be one of "a", "b"');
    expect(result!.content).toContain('unknown field `junk` is not allowed');
    expect(describeErrors([])).toBe('');
  });
});
