import type { JsonSchema } from '@spine/protocol';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

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

/** A compiled argument validator: returns `undefined` when valid, else a message naming each bad field. */
export type ArgumentValidator = (args: unknown) => string | undefined;

/** Validators by schema object: registering a tool checks its schema compiles, then uses it. */
const compiled = new WeakMap<JsonSchema, { validate: ArgumentValidator; raw: ValidateFunction }>();

/**
 * Compiles a tool's JSON Schema once: the same schema object (registration checks the schema and
 * then takes its validator; each runtime registers the same definitions) is compiled only the
 * first time, which halves the ajv work on the way to a session's first request. Throws when
 * the schema itself is invalid.
 */
export function compileArgumentValidator(schema: JsonSchema): {
  validate: ArgumentValidator;
  raw: ValidateFunction;
} {
  const cached = compiled.get(schema);
  if (cached) return cached;
  const { $schema: _ignored, ...rest } = schema;
  const raw = ajv().compile(rest);
  const validate: ArgumentValidator = (args) =>
    raw(args) ? undefined : describeErrors(raw.errors ?? []);
  const result = { validate, raw };
  compiled.set(schema, result);
  return result;
}

function fieldName(instancePath: string, extra?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  let out = '';
  for (const part of parts)
    out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`;
  return out === '' ? '(the arguments object)' : out;
}

/** Renders ajv errors as one sentence per field, for the model. */
export function describeErrors(errors: readonly ErrorObject[]): string {
  const lines = new Set<string>();
  for (const error of errors) {
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'required') {
      lines.add(
        `missing required field \`${fieldName(error.instancePath, String(params.missingProperty))}\``,
      );
    } else if (error.keyword === 'additionalProperties') {
      lines.add(
        `unknown field \`${fieldName(error.instancePath, String(params.additionalProperty))}\` is not allowed`,
      );
    } else if (error.keyword === 'enum') {
      const allowed = (params.allowedValues as unknown[])
        .map((value) => JSON.stringify(value))
        .join(', ');
      lines.add(`\`${fieldName(error.instancePath)}\` must be one of ${allowed}`);
    } else {
      lines.add(`\`${fieldName(error.instancePath)}\` ${error.message ?? 'is invalid'}`);
    }
  }
  return [...lines].join('; ');
}

/**
 * How deeply a call's arguments may nest, counting the arguments object itself as level 1. The
 * arguments are recorded inside result bodies (`meta.params` of `tool/result`, three levels down)
 * and the session log refuses bodies deeper than 64 levels, so a call nesting deeper than this is
 * refused before hooks, approval or execution: a tool that ran always has a recordable result.
 */
export const MAX_ARGUMENT_DEPTH = 32;

/**
 * True when `value` has objects or arrays nested more than `limit` levels (a top-level object or
 * array is level 1). Iterative, so 100,000 levels cannot overflow the stack.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const pending: { node: object; depth: number }[] = [{ node: value, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth > limit) return true;
    const items: unknown[] = Array.isArray(next.node) ? next.node : Object.values(next.node);
    for (const item of items)
      if (typeof item === 'object' && item !== null)
        pending.push({ node: item, depth: next.depth + 1 });
  }
  return false;
}
