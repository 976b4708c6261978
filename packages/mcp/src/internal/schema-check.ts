import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// The same ajv configuration as @spine/tool-runtime's argument validator, so a schema that passes
// here compiles there (the runtime would otherwise refuse to register the tool).
type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats);

let shared: Ajv2020 | undefined;

function ajv(): Ajv2020 {
  if (!shared) {
    shared = new Ajv2020({
      allErrors: true,
      strict: false,
      useDefaults: true,
      validateSchema: true,
    });
    addFormats(shared);
  }
  return shared;
}

/** Returns `undefined` when ajv compiles the schema as the tool runtime would, else why not. */
export function schemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return 'the input schema is not a JSON object';
  if ((schema as { type?: unknown }).type !== 'object')
    return 'the input schema is not of type "object"';
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  try {
    ajv().compile(rest);
    // Compiled validators are cached by ajv per schema object; drop this one so a long session
    // with changing tool lists does not grow the cache.
    ajv().removeSchema(rest);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
