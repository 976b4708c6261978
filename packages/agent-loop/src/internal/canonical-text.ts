// A faster equivalent of `canonicalJson` from @spine/protocol for the per-step hot path (each
// new message is serialised once, when it first appears in a request). It builds the text by
// concatenation instead of part arrays, sorts an object's keys only when they are not already
// in order, and caches the quoted form of keys. The output is byte for byte that of
// `canonicalJson` (property-tested), which replay and older logs rely on.

const quotedKeys = new Map<string, string>();
const MAX_CACHED_KEYS = 4096;

/** `"key":` for an object key, cached (message keys repeat endlessly). */
function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = `${JSON.stringify(key)}:`;
    if (quotedKeys.size < MAX_CACHED_KEYS) quotedKeys.set(key, quoted);
  }
  return quoted;
}

function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  for (let i = 1; i < keys.length; i++) {
    if ((keys[i - 1] as string) > (keys[i] as string)) return keys.sort();
  }
  return keys;
}

/** Canonical JSON text of `value`: object keys sorted, `undefined` members left out. */
export function canonicalText(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) text += ',';
      text += canonicalText(value[i] ?? null);
    }
    return `${text}]`;
  }
  const keys = sortedKeys(value);
  let text = '{';
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const child = (value as Record<string, unknown>)[key];
    if (child === undefined) continue;
    if (!first) text += ',';
    first = false;
    text += quotedKey(key) + canonicalText(child);
  }
  return `${text}}`;
}
