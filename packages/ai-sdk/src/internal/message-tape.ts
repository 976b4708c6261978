// The fast path of the recorder's shared-prefix check. The AI SDK hands the middleware fresh
// message objects at every step (around the same strings), so telling that the previous call's
// messages are unchanged means reading each of them once per call. `sameAsJson`, the plain
// version, walks a message against its converted JSON: per object an Object.keys array, a keyed
// lookup per member in the JSON and a count of the JSON's keys. A tape is what the conversion
// read of one message, flat and in the order a later walk meets it (members in their own order,
// not sorted): matching a fresh message against it is one for-in walk over the message beside
// sequential reads of an array, with no allocation: at 1,000 messages, roughly half the time.
//
// Soundness: a tape is made in the same pass that makes the message's JSON, from the same reads,
// and holds only what that JSON depends on (plain objects' own enumerable members that are not
// undefined, functions or symbols; array items; primitives). A later message matches it only if a
// walk meets the same members, in the same order, with the same primitive values (===), and every
// object in it is plain, so it converts to the same JSON (given reads that answer the same each
// time, which sameAsJson assumes as well). Anything else (bytes, dates, URLs, class instances,
// bigints, holes) leaves the message without a tape, and a message that does not match is
// compared by `sameAsJson`. While Object.prototype has an enumerable member a for-in walk would
// meet it, so the recorder does not use tapes then (`tapesUsable`). message-tape.test.ts checks
// both properties against toJson on generated messages.

import type { JsonObject, JsonValue } from '@spine/protocol';
import { isPlainObject, setMember, toJson } from './canonical.js';

/** What converting one message read: see the file's comment. */
export type MessageTape = readonly unknown[];

// Marks: objects, so no primitive of a message is ever === one of them.
const OBJECT = Object.freeze({ tape: 'object' });
const ARRAY = Object.freeze({ tape: 'array' });
const END = Object.freeze({ tape: 'end' });

/** Returned inside a conversion that meets a value a tape cannot hold; never leaves this file. */
const NO_TAPE = Symbol('no tape');

const isDropped = (value: unknown): boolean =>
  value === undefined || typeof value === 'function' || typeof value === 'symbol';

/**
 * Converts a prompt message to JSON as `toJson(message) ?? null` does (the same value, keys in
 * the same order), and returns the tape of that conversion, or no tape when the message holds
 * something a tape cannot (then `json` is `toJson`'s own result).
 */
export function convertMessage(message: unknown): {
  json: JsonValue;
  tape: MessageTape | undefined;
} {
  if (typeof message === 'object' && message !== null) {
    const tape: unknown[] = [];
    const json = convertNode(message, tape);
    if (json !== NO_TAPE) return { json, tape };
  }
  return { json: toJson(message) ?? null, tape: undefined };
}

function convertValue(value: unknown, tape: unknown[]): JsonValue | typeof NO_TAPE {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      tape.push(value);
      return value;
    case 'number':
      tape.push(value);
      return Number.isFinite(value) ? value : null;
    case 'object':
      if (value === null) {
        tape.push(null);
        return null;
      }
      return convertNode(value, tape);
    default:
      return NO_TAPE; // bigint (the callers drop undefined, functions and symbols)
  }
}

function convertNode(value: object, tape: unknown[]): JsonValue | typeof NO_TAPE {
  if (Array.isArray(value)) {
    tape.push(ARRAY, value.length);
    const out: JsonValue[] = [];
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return NO_TAPE; // a hole, which toJson keeps
      const item: unknown = value[i];
      if (isDropped(item)) {
        tape.push(null);
        out.push(null);
        continue;
      }
      const converted = convertValue(item, tape);
      if (converted === NO_TAPE) return NO_TAPE;
      out.push(converted);
    }
    return out;
  }
  if (!isPlainObject(value)) return NO_TAPE;
  tape.push(OBJECT);
  const record = value as Record<string, unknown>;
  const members = new Map<string, JsonValue>();
  for (const key of Object.keys(record)) {
    const member = record[key];
    if (isDropped(member)) continue;
    tape.push(key);
    const converted = convertValue(member, tape);
    if (converted === NO_TAPE) return NO_TAPE;
    members.set(key, converted);
  }
  tape.push(END);
  // Keys in toJson's order (sorted), so the recorded JSON is byte for byte what toJson gives.
  const out: JsonObject = {};
  for (const key of [...members.keys()].sort()) setMember(out, key, members.get(key) as JsonValue);
  return out;
}

/**
 * True when `message` converts to the same JSON as the message `tape` was made from, found by
 * walking it once. False when it differs, or when this walk cannot tell (members in another
 * order, a value a tape does not hold): the caller then compares with `sameAsJson`.
 */
export function matchesTape(message: unknown, tape: MessageTape): boolean {
  if (typeof message !== 'object' || message === null) return false;
  return matchNode(message, tape, 0) === tape.length;
}

/** Matches `value` against the tape from `at`: the position after it, or -1. */
function matchNode(value: object, tape: MessageTape, at: number): number {
  let position = at;
  const mark = tape[position];
  if (mark === ARRAY) {
    if (!Array.isArray(value) || tape[position + 1] !== value.length) return -1;
    position += 2;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null) {
        position = matchNode(item, tape, position);
        if (position < 0) return -1;
      } else if (isDropped(item)) {
        if (!(i in value) || tape[position++] !== null) return -1;
      } else if (item !== tape[position++]) return -1;
    }
    return position;
  }
  if (mark !== OBJECT) return -1;
  // isPlainObject, inline (an array is not plain either: its prototype is Array.prototype).
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return -1;
  position++;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const member = record[key];
    if (typeof member === 'string') {
      // Most members are strings: one branch for them.
      if (tape[position] !== key || tape[position + 1] !== member) return -1;
      position += 2;
    } else if (typeof member === 'object' && member !== null) {
      if (tape[position++] !== key) return -1;
      position = matchNode(member, tape, position);
      if (position < 0) return -1;
    } else if (!isDropped(member)) {
      if (tape[position] !== key || tape[position + 1] !== member) return -1;
      position += 2;
    }
  }
  return tape[position] === END ? position + 1 : -1;
}

/**
 * False while Object.prototype has an enumerable member: a for-in walk would then meet members a
 * message inherits, which its JSON does not hold.
 */
export function tapesUsable(): boolean {
  for (const _ in Object.prototype) return false;
  return true;
}
