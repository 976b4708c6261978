import { z } from 'zod';
/** Schema of {@link JsonValue}: finite numbers only, no undefined, functions or cycles. */
export const JsonValueSchema = z.lazy(() => z.union([
    z.string(),
    z.number().finite(),
    z.boolean(),
    z.null(),
    z.array(JsonValueSchema),
    z.record(z.string(), JsonValueSchema),
]));
/**
 * Returns why `value` is not plain JSON (a path and a reason), or `undefined` when it is.
 * Rejects `undefined`, functions, symbols, bigints, non-finite numbers, cycles and class
 * instances other than plain objects and arrays.
 */
export function findNonJson(value, path = '$', seen = new Set()) {
    switch (typeof value) {
        case 'string':
        case 'boolean':
            return undefined;
        case 'number':
            return Number.isFinite(value) ? undefined : `${path} is a non-finite number`;
        case 'object': {
            if (value === null)
                return undefined;
            if (seen.has(value))
                return `${path} is a cycle`;
            seen.add(value);
            try {
                if (Array.isArray(value)) {
                    for (let i = 0; i < value.length; i++) {
                        const reason = findNonJson(value[i], `${path}[${i}]`, seen);
                        if (reason)
                            return reason;
                    }
                    return undefined;
                }
                const proto = Object.getPrototypeOf(value);
                if (proto !== Object.prototype && proto !== null)
                    return `${path} is a class instance, not a plain object`;
                for (const [key, child] of Object.entries(value)) {
                    const reason = findNonJson(child, `${path}.${key}`, seen);
                    if (reason)
                        return reason;
                }
                return undefined;
            }
            finally {
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
export function canonicalJson(value) {
    if (value === null || typeof value !== 'object')
        return JSON.stringify(value) ?? 'null';
    if (Array.isArray(value))
        return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
    const keys = Object.keys(value).sort();
    const parts = [];
    for (const key of keys) {
        const child = value[key];
        if (child === undefined)
            continue;
        parts.push(`${JSON.stringify(key)}:${canonicalJson(child)}`);
    }
    return `{${parts.join(',')}}`;
}
//# sourceMappingURL=json.js.map