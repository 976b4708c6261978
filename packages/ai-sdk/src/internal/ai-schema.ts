// The AI SDK's JSON Schema wrapper without importing `ai` at run time. `jsonSchema()` of `ai` 6
// and 7 returns { [Symbol.for('vercel.ai.schema')]: true, jsonSchema, validate }, and both majors'
// `asSchema` recognise a schema by exactly that registered symbol. Building it here keeps `ai` a
// types-only import: `require('@spine/ai-sdk')` works although `ai` 7 ships ES modules only, and
// one installed copy of this package serves either major. test/ai-schema.test.ts checks the
// object against the installed `ai`'s own `jsonSchema` and `asSchema`.

import type { JsonObject } from '@spine/protocol';
import type { Tool } from 'ai';

const SCHEMA_SYMBOL = Symbol.for('vercel.ai.schema');

/** The `inputSchema` of a tool whose parameters are this JSON Schema (validated by Spine's runtime). */
export function aiJsonSchema(schema: JsonObject): Tool<JsonObject, unknown>['inputSchema'] {
  return {
    [SCHEMA_SYMBOL]: true,
    _type: undefined,
    jsonSchema: schema,
    validate: undefined,
  } as unknown as Tool<JsonObject, unknown>['inputSchema'];
}
