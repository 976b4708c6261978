// The AI SDK's schema for Spine's JSON Schemas, without importing `ai` at run time or in the
// published types. The object is two things at once:
// - the AI SDK's own schema: `jsonSchema()` of `ai` 6 and 7 returns { [Symbol.for('vercel.ai.schema')]:
//   true, jsonSchema, validate }, and both majors' `asSchema` recognise a schema by exactly that
//   registered symbol first, so the model gets the tool's JSON Schema unchanged;
// - a Standard Schema v1 with the Standard JSON Schema converter (standardschema.dev), which is how
//   its type is written: both majors' `FlexibleSchema` accept that structural type.
// So `ai` is a types-free peer: `require('@spine/ai-sdk')` works although `ai` 7 ships ES modules
// only, and a consumer's type check never loads `ai`'s declarations through this package.
// test/ai-schema.test.ts checks the object against the installed `ai`'s `jsonSchema`/`asSchema`.

import type { JsonObject } from '@spine/protocol';
import type { SpineToolInputSchema } from '../tools.js';

const SCHEMA_SYMBOL = Symbol.for('vercel.ai.schema');

/** The `inputSchema` of a tool whose parameters are this JSON Schema (validated by Spine's runtime). */
export function aiJsonSchema(schema: JsonObject): SpineToolInputSchema {
  const json = (): JsonObject => schema;
  return {
    [SCHEMA_SYMBOL]: true,
    _type: undefined,
    jsonSchema: schema,
    validate: undefined,
    '~standard': {
      version: 1,
      vendor: 'spine',
      // Arguments are checked by Spine's runtime (ajv, naming each field) when the tool runs.
      validate: (value: unknown) => ({ value: value as JsonObject }),
      jsonSchema: { input: json, output: json },
    },
  } as SpineToolInputSchema;
}
