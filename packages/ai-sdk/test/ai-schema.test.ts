import { tmpDir } from '@spine/test-utils';
import { asSchema, jsonSchema } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { spineTools } from '../src/index.js';
import { aiJsonSchema } from '../src/internal/ai-schema.js';

describe('the AI SDK schema object built without importing ai', () => {
  it('is recognised by the installed ai as a schema, like jsonSchema() (property)', async () => {
    const schema = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 });
    await fc.assert(
      fc.asyncProperty(schema, async (parameters) => {
        const ours = asSchema(aiJsonSchema(parameters as never));
        const theirs = asSchema(jsonSchema(parameters as never));
        expect(await ours.jsonSchema).toEqual(await theirs.jsonSchema);
        expect(ours.validate).toBe(theirs.validate); // neither validates: Spine's runtime does
        expect(ours.validate).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it('gives every spine tool the runtime parameters schema', async () => {
    const tools = spineTools({ cwd: tmpDir('spine-ai-sdk-schema-'), sandboxBackend: null });
    expect(Object.keys(tools).sort()).toEqual([
      'bash',
      'edit',
      'glob',
      'grep',
      'list',
      'read',
      'write',
    ]);
    const read = await asSchema(tools.read?.inputSchema).jsonSchema;
    expect(read).toMatchObject({ type: 'object', properties: { path: { type: 'string' } } });
  });
});
