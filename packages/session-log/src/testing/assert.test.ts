import { SpineError } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { SessionLockedError } from '../errors.js';
import { ConformanceFailure, expectCode, expectFields, expectSame, expectWorks } from './assert.js';

async function messageOf(action: () => unknown): Promise<string> {
  try {
    await action();
  } catch (error) {
    expect(error).toBeInstanceOf(ConformanceFailure);
    return (error as Error).message;
  }
  throw new Error('expected the assertion to fail');
}

describe('conformance assertions', () => {
  it('compare as JSON, so undefined properties count as absent', () => {
    expect(() => expectSame({ a: 1, b: undefined }, { a: 1 }, 'x')).not.toThrow();
  });

  it('name the first nested difference and where it is', async () => {
    const message = await messageOf(() =>
      expectSame({ events: [{ seq: 1 }, { seq: 3 }] }, { events: [{ seq: 1 }, { seq: 2 }] }, 'ev'),
    );
    expect(message).toBe('ev: expected 2, got 3 (at .events[1].seq)');
  });

  it('say how many items were expected and show the first extra one', async () => {
    const message = await messageOf(() => expectSame([1, 2, 'surplus'], [1, 2], 'list'));
    expect(message).toBe(
      "list: expected 2 items, got 3 (at .length); the first extra item is 'surplus'",
    );
  });

  it('check only the named fields of an object', async () => {
    expectFields({ a: 1, b: 2 }, { a: 1 }, 'fields');
    expect(await messageOf(() => expectFields(null, { a: 1 }, 'fields'))).toBe(
      'fields: expected an object, got null',
    );
  });

  it('accept a SpineError with the expected code and explain every other outcome', async () => {
    const locked = new SessionLockedError({ sessionId: 's', pid: 1 });
    await expect(expectCode(() => Promise.reject(locked), 'SESSION_LOCKED', 'open')).resolves.toBe(
      locked,
    );
    expect(await messageOf(() => expectCode(() => 1, 'SESSION_LOCKED', 'open'))).toBe(
      'open: expected a SpineError with code SESSION_LOCKED, but it succeeded',
    );
    const foreign = Object.assign(new Error('busy'), { code: 'SESSION_LOCKED' });
    expect(
      await messageOf(() => expectCode(() => Promise.reject(foreign), 'SESSION_LOCKED', 'open')),
    ).toMatch(/threw Error: busy \(the code matches but the error is not a SpineError/);
    const other = new SpineError({ code: 'SESSION_CLOSED', message: 'closed' });
    expect(
      await messageOf(() => expectCode(() => Promise.reject(other), 'SESSION_LOCKED', 'open')),
    ).toBe(
      'open: expected a SpineError with code SESSION_LOCKED, but it threw SpineError with code SESSION_CLOSED: closed',
    );
  });

  it('turn an unexpected error into a failure that says the action should have worked', async () => {
    expect(
      await messageOf(() => expectWorks(() => Promise.reject(new TypeError('boom')), 'list()')),
    ).toBe('list(): expected it to work, but it threw TypeError: boom');
  });
});
