import { z } from 'zod';
import type { JsonValue } from './json-values.js';

export type { JsonObject, JsonSchema, JsonValue } from './json-values.js';
export { canonicalJson, findNonJson } from './json-values.js';

/** Schema of {@link JsonValue}: finite numbers only, no undefined, functions or cycles. */
export const JsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number().finite(),
    z.boolean(),
    z.null(),
    z.array(JsonValueSchema),
    z.record(z.string(), JsonValueSchema),
  ]),
);
