// Canonical JSON of AI SDK values (prompts, settings, tools, responses): what the recorder stores
// and hashes (with @spine/protocol's canonicalJson, keys sorted). Bytes become { $bytes: base64 }, URLs and Dates strings, undefined members vanish,
// non-finite numbers become null.

import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '@spine/protocol';
import { canonicalJson } from '@spine/protocol/core';

export { canonicalJson };

/** True for objects whose prototype is Object.prototype or null. */
export function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Converts a value to plain JSON (undefined for values JSON drops: undefined, functions, symbols). */
export function toJson(value: unknown): JsonValue | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      return value.toString();
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) return value.map((item) => toJson(item) ?? null);
      if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64') };
      if (value instanceof ArrayBuffer) return { $bytes: Buffer.from(value).toString('base64') };
      if (value instanceof URL) return value.href;
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
      if (!isPlainObject(value) && typeof (value as { toJSON?: unknown }).toJSON === 'function')
        return toJson((value as { toJSON: () => unknown }).toJSON());
      const out: JsonObject = {};
      for (const key of Object.keys(value).sort()) {
        const converted = toJson((value as Record<string, unknown>)[key]);
        if (converted === undefined) continue;
        setMember(out, key, converted);
      }
      return out;
    }
    default:
      return undefined;
  }
}

/**
 * True when `toJson(raw)` would equal `json` (already converted). Strings the SDK passes along
 * unchanged are the same heap strings, so a shared prefix costs a walk over its nodes, not its text.
 */
export function sameAsJson(raw: unknown, json: JsonValue | undefined): boolean {
  if (raw === json) return true;
  if (typeof raw !== 'object' || raw === null) return (toJson(raw) ?? null) === json;
  if (typeof json !== 'object' || json === null) return (toJson(raw) ?? null) === json;
  if (Array.isArray(raw)) {
    if (!Array.isArray(json) || raw.length !== json.length) return false;
    for (let i = 0; i < raw.length; i++) if (!sameAsJson(raw[i], json[i] ?? null)) return false;
    return true;
  }
  if (Array.isArray(json)) return false;
  if (!isPlainObject(raw)) return canonicalJson(toJson(raw) ?? null) === canonicalJson(json);
  return sameMembers(raw as Record<string, unknown>, json);
}

function sameMembers(raw: Record<string, unknown>, json: JsonObject): boolean {
  const keys = Object.keys(raw);
  let count = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const member = raw[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol')
      continue;
    count++;
    // Converted objects have no undefined members: an absent key reads undefined, except
    // `__proto__`, which reads the prototype unless it is an own member.
    const other = json[key];
    if (other === undefined || (key === '__proto__' && !Object.hasOwn(json, key))) return false;
    if (!sameAsJson(member, other)) return false;
  }
  let jsonCount = 0;
  for (const _ in json) jsonCount++;
  return count === jsonCount;
}

/** SHA-256 (hex) of a text. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The start of the message chain: the hash of an empty prompt. */
export const EMPTY_CHAIN = sha256('');

/** The chain value after one more message: SHA-256 over the previous value and its canonical JSON. */
export function chainMessage(previous: string, message: JsonValue): string {
  return createHash('sha256').update(previous).update(canonicalJson(message)).digest('hex');
}

/** The canonical request hash of one model call. */
export function requestHashOf(fields: {
  mode: string;
  provider: string;
  modelId: string;
  settings: JsonValue;
  toolsHash: string | null;
  messagesHash: string;
}): string {
  return sha256(canonicalJson(fields as unknown as JsonValue));
}

/**
 * Sets `out[key]` as an own enumerable member, `__proto__` included (JSON.parse makes it an own
 * member; plain assignment would set the prototype instead).
 */
export function setMember(out: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else out[key] = value;
}
