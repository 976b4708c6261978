/** In a for-in loop V8 turns `hasOwnProperty.call` into a map check; `Object.hasOwn` is 4× slower. */
const ownProperty = Object.prototype.hasOwnProperty;

/**
 * True when `value` is certainly plain JSON: a fast path that builds no paths and allocates
 * nothing. When it returns false, call `findNonJson` from `@spine/protocol` for the reason.
 * Nesting deeper than 64 levels (or a cycle) also returns false, leaving the verdict to it.
 */
export function isPlainJson(value: unknown, depth = 0): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (depth > 64) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
        if (!ownProperty.call(value, key)) continue;
        if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}
