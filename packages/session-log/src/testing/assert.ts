// The conformance suite's own assertions. They throw an `Error` (ConformanceFailure) whose message
// says what was expected and what the store did, so the suite runs under any test framework or none.

import { inspect, isDeepStrictEqual } from 'node:util';
import { SpineError } from '@spine/protocol/core';

const SHOW_LIMIT = 300;

/** The error every assertion here throws: a plain `Error` whose message is the whole story. */
export class ConformanceFailure extends Error {
  override readonly name = 'ConformanceFailure';
}

/** A short, one-line rendering of a value for a failure message. */
export function show(value: unknown): string {
  const text = inspect(value, {
    depth: 3,
    breakLength: Number.POSITIVE_INFINITY,
    maxArrayLength: 8,
    maxStringLength: 80,
  });
  return text.length > SHOW_LIMIT ? `${text.slice(0, SHOW_LIMIT)}…` : text;
}

/** Events and bodies are JSON: compare them as JSON would (undefined properties are absent). */
function asJson(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

interface Difference {
  path: string;
  actual: unknown;
  expected: unknown;
  note?: string;
}

/** The path and the two values of the first place where `actual` and `expected` differ. */
function firstDifference(actual: unknown, expected: unknown, path: string): Difference | undefined {
  if (isDeepStrictEqual(actual, expected)) return undefined;
  const bothObjects =
    actual !== null &&
    expected !== null &&
    typeof actual === 'object' &&
    typeof expected === 'object' &&
    Array.isArray(actual) === Array.isArray(expected);
  if (!bothObjects) return { path, actual, expected };
  const a = actual as Record<string, unknown>;
  const e = expected as Record<string, unknown>;
  if (Array.isArray(actual) && Array.isArray(expected) && actual.length !== expected.length) {
    const length = Math.min(actual.length, expected.length);
    for (let i = 0; i < length; i++) {
      const inner = firstDifference(a[i], e[i], `${path}[${i}]`);
      if (inner) return inner;
    }
    const note =
      actual.length < expected.length
        ? `the first missing item is ${show(expected[length])}`
        : `the first extra item is ${show(actual[length])}`;
    return { path: `${path}.length`, actual: actual.length, expected: expected.length, note };
  }
  for (const key of new Set([...Object.keys(e), ...Object.keys(a)])) {
    const inner = firstDifference(
      a[key],
      e[key],
      Array.isArray(actual) ? `${path}[${key}]` : `${path}.${key}`,
    );
    if (inner) return inner;
  }
  return { path, actual, expected };
}

/** Throws an `Error` saying `what` failed when `condition` is false. */
export function ensure(condition: boolean, what: string): asserts condition {
  if (!condition) throw new ConformanceFailure(what);
}

/** Throws unless `actual` equals `expected` as JSON, naming the first difference. */
export function expectSame(actual: unknown, expected: unknown, what: string): void {
  const difference = firstDifference(asJson(actual), asJson(expected), '');
  if (!difference) return;
  const where = difference.path ? ` (at ${difference.path})` : '';
  const note = difference.note ? `; ${difference.note}` : '';
  const items = difference.note ? ' items' : '';
  throw new ConformanceFailure(
    `${what}: expected ${show(difference.expected)}${items}, got ${show(difference.actual)}${where}${note}`,
  );
}

/** Throws unless every property of `subset` equals (as JSON) the same property of `actual`. */
export function expectFields(actual: unknown, subset: Record<string, unknown>, what: string): void {
  ensure(
    actual !== null && typeof actual === 'object',
    `${what}: expected an object, got ${show(actual)}`,
  );
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(subset)) picked[key] = (actual as Record<string, unknown>)[key];
  expectSame(picked, subset, what);
}

/** Describes a thrown value for a failure message: class, code (when any) and message. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return `threw ${show(error)}`;
  const code = SpineError.isInstance(error) ? ` with code ${error.code}` : '';
  return `threw ${error.name}${code}: ${error.message}`;
}

/**
 * Throws unless `action` fails with a `SpineError` (from `@spine/session-log`'s error classes or
 * any other) whose code is `code`; resolves to that error.
 */
export async function expectCode(
  action: () => unknown,
  code: string,
  what: string,
): Promise<SpineError> {
  let outcome: { error: unknown } | undefined;
  try {
    await action();
  } catch (error) {
    outcome = { error };
  }
  const expected = `${what}: expected a SpineError with code ${code}`;
  if (!outcome) throw new ConformanceFailure(`${expected}, but it succeeded`);
  const { error } = outcome;
  if (SpineError.isInstance(error) && error.code === code) return error;
  const foreign =
    !SpineError.isInstance(error) && (error as { code?: unknown } | null)?.code === code
      ? ' (the code matches but the error is not a SpineError: throw the error classes of @spine/session-log)'
      : '';
  throw new ConformanceFailure(`${expected}, but it ${describeError(error)}${foreign}`);
}

/** Runs `action` and rethrows any failure with `what` in front, saying that it should have worked. */
export async function expectWorks<T>(action: () => Promise<T> | T, what: string): Promise<T> {
  try {
    return await action();
  } catch (error) {
    throw new ConformanceFailure(`${what}: expected it to work, but it ${describeError(error)}`, {
      cause: error,
    });
  }
}
