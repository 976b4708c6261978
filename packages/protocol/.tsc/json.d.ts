import { z } from 'zod';
/** A value that survives `JSON.stringify` / `JSON.parse` unchanged. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | {
      [key: string]: JsonValue;
    };
/** A JSON object. */
export type JsonObject = {
  [key: string]: JsonValue;
};
/** Schema of {@link JsonValue}: finite numbers only, no undefined, functions or cycles. */
export declare const JsonValueSchema: z.ZodType<JsonValue>;
/** A JSON Schema document (draft 2020-12 unless stated), as sent to models. */
export type JsonSchema = {
  [key: string]: JsonValue;
};
/**
 * Returns why `value` is not plain JSON (a path and a reason), or `undefined` when it is.
 * Rejects `undefined`, functions, symbols, bigints, non-finite numbers, cycles and class
 * instances other than plain objects and arrays.
 */
export declare function findNonJson(
  value: unknown,
  path?: string,
  seen?: Set<object>,
): string | undefined;
/**
 * Serialises a JSON value with object keys sorted, so equal values give equal strings.
 * Used for request hashes.
 */
export declare function canonicalJson(value: unknown): string;
//# sourceMappingURL=json.d.ts.map
