import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson, toJson } from './canonical.js';
import { convertMessage, matchesTape, tapesUsable } from './message-tape.js';

class Point {
  constructor(
    public x: number,
    public y: number,
  ) {}
}
class Stamp {
  toJSON(): string {
    return 'stamp';
  }
}

const key = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.constantFrom('__proto__', 'constructor', 'toJSON', '10', '9', ''),
);
// Everything toJson has a case for, and what a tape cannot hold: bytes, dates, URLs, class
// instances (with and without toJSON), bigints, dropped values, holes, null prototypes.
const value = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small' },
    fc.string({ maxLength: 4 }),
    fc.double(),
    fc.constantFrom(0, -0, Number.NaN, Number.POSITIVE_INFINITY, 1),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.bigInt({ min: -9n, max: 9n }),
    fc.constantFrom(
      () => 1,
      Symbol('s'),
      new Point(1, 2),
      new Stamp(),
      new URL('https://example.com/a'),
    ),
    fc.uint8Array({ maxLength: 4 }),
    fc.date({ noInvalidDate: false }),
    fc.array(tie('any'), { maxLength: 3 }),
    fc.sparseArray(tie('any'), { maxLength: 3 }),
    fc.dictionary(key, tie('any'), { maxKeys: 3 }),
    fc
      .dictionary(key, tie('any'), { maxKeys: 3 })
      .map((members) => Object.assign(Object.create(null), members)),
  ),
})).any;
const message = fc.dictionary(key, value, { maxKeys: 4 });

/** A fresh copy (new objects and arrays, strings rebuilt), as the AI SDK makes at each step. */
function rebuild(raw: unknown): unknown {
  if (typeof raw === 'string') return [...raw].join('');
  if (typeof raw !== 'object' || raw === null || !isPlainOrArray(raw)) return raw;
  if (Array.isArray(raw)) {
    const out: unknown[] = new Array(raw.length);
    raw.forEach((item, i) => {
      out[i] = rebuild(item); // forEach skips holes: the copy keeps them
    });
    return out;
  }
  const out = Object.create(Object.getPrototypeOf(raw)) as Record<string, unknown>;
  for (const name of Object.keys(raw))
    Object.defineProperty(out, name, {
      value: rebuild((raw as Record<string, unknown>)[name]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

function isPlainOrArray(raw: object): boolean {
  const proto = Object.getPrototypeOf(raw);
  return Array.isArray(raw) || proto === Object.prototype || proto === null;
}

/** A fresh copy with one edit at the `at`-th node (pre-order): some change its JSON, some do not. */
function edit(raw: unknown, at: number, kind: number): unknown {
  let seen = 0;
  const walk = (node: unknown): unknown => {
    const here = seen++ === at;
    if (here) {
      switch (kind) {
        case 0:
          return 'edited';
        case 1:
          return undefined;
        case 2:
          return null;
        case 3:
          return new Date(0);
        case 4:
          return typeof node === 'string' ? `${node}!` : 0;
      }
    }
    if (typeof node !== 'object' || node === null || !isPlainOrArray(node)) return rebuild(node);
    if (Array.isArray(node)) {
      const out = node.map(walk);
      if (here && kind === 5) out.push('added');
      if (here && kind === 6) out.pop();
      if (here && kind === 7) out.reverse();
      if (here && kind === 8) delete out[0]; // a hole where an item was
      return out;
    }
    const names = Object.keys(node);
    if (here && kind === 7) names.reverse(); // the same members in another order
    const out = Object.create(Object.getPrototypeOf(node)) as Record<string, unknown>;
    for (const name of names.slice(here && kind === 6 ? 1 : 0))
      Object.defineProperty(out, name, {
        value: walk((node as Record<string, unknown>)[name]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    if (here && kind === 5) out.added = 1;
    if (here && kind === 8) out.dropped = undefined; // dropped by toJson: the same JSON
    return out;
  };
  return walk(raw);
}

const canonical = (raw: unknown): string => canonicalJson(toJson(raw) ?? null);

afterEach(() => {
  delete (Object.prototype as Record<string, unknown>).polluted;
});

describe('message tapes', () => {
  it('convert a message to exactly what toJson gives, keys in the same order (property)', () => {
    fc.assert(
      fc.property(value, (raw) => {
        const { json } = convertMessage(raw);
        expect(JSON.stringify(json)).toBe(JSON.stringify(toJson(raw) ?? null));
        expect(canonicalJson(json)).toBe(canonical(raw));
      }),
      { numRuns: 3000 },
    );
  });

  it('match a fresh copy of their message, and only messages with the same JSON (property)', () => {
    fc.assert(
      fc.property(
        message,
        fc.nat(40),
        fc.integer({ min: 0, max: 10 }),
        value,
        (raw, at, kind, other) => {
          const { json, tape } = convertMessage(raw);
          if (!tape) return;
          // NaN !== NaN: a message holding one is left to sameAsJson, like one without a tape.
          if (!tape.some((entry) => Number.isNaN(entry)))
            expect(matchesTape(rebuild(raw), tape)).toBe(true);
          for (const candidate of [edit(raw, at, kind), other, { ...(raw as object) }]) {
            if (matchesTape(candidate, tape))
              expect(canonical(candidate)).toBe(canonicalJson(json));
          }
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('hold the messages the AI SDK builds, so the shared prefix takes the fast path', () => {
    const messages = [
      { role: 'system', content: 'You are careful.' },
      { role: 'user', content: [{ type: 'text', text: 'hi', providerOptions: undefined }] },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'c1',
            toolName: 'read',
            input: { path: 'a.ts', lines: [1, 2] },
            providerExecuted: undefined,
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'read',
            output: { type: 'json', value: { ok: true, n: null } },
          },
        ],
      },
    ];
    for (const raw of messages) {
      const { tape } = convertMessage(raw);
      expect(tape).toBeDefined();
      expect(matchesTape(rebuild(raw), tape ?? [])).toBe(true);
    }
  });

  it('are not used while Object.prototype has an enumerable member', () => {
    expect(tapesUsable()).toBe(true);
    (Object.prototype as Record<string, unknown>).polluted = 1;
    expect(tapesUsable()).toBe(false);
  });
});
