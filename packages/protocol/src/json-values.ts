// The zod-free half of the JSON helpers (the schema is in json.ts): part of `@spine/protocol/core`.

/** A value that survives `JSON.stringify` / `JSON.parse` unchanged. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** A JSON Schema document (draft 2020-12 unless stated), as sent to models. */
export type JsonSchema = { [key: string]: JsonValue };

/**
 * Returns why `value` is not plain JSON (a path and a reason), or `undefined` when it is.
 * Rejects `undefined`, functions, symbols, bigints, non-finite numbers, cycles and class
 * instances other than plain objects and arrays.
 */
export function findNonJson(
  value: unknown,
  path = '$',
  seen = new Set<object>(),
): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${path} is a non-finite number`;
    case 'object': {
      if (value === null) return undefined;
      if (seen.has(value)) return `${path} is a cycle`;
      seen.add(value);
      try {
        if (Array.isArray(value)) {
          for (let i = 0; i < value.length; i++) {
            const reason = findNonJson(value[i], `${path}[${i}]`, seen);
            if (reason) return reason;
          }
          return undefined;
        }
        const proto = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null)
          return `${path} is a class instance, not a plain object`;
        for (const [key, child] of Object.entries(value)) {
          const reason = findNonJson(child, `${path}.${key}`, seen);
          if (reason) return reason;
        }
        return undefined;
      } finally {
        seen.delete(value);
      }
    }
    default:
      return `${path} is ${typeof value}, which JSON cannot hold`;
  }
}

/**
 * Serialises a JSON value with object keys sorted, so equal values give equal strings.
 * Used for request hashes.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  const keys = Object.keys(value).sort();
  const parts: string[] = [];
  for (const key of keys) {
    const child = (value as Record<string, unknown>)[key];
    if (child === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJson(child)}`);
  }
  return `{${parts.join(',')}}`;
}
