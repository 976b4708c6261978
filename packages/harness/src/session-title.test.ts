import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryStore, Session } from '@spine/session-log';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readSessionIndex, writeSessionIndex } from './session-index.js';
import {
  AUTO_TITLE_MAX,
  currentSessionTitle,
  deriveSessionTitle,
  personTitle,
  recordSessionTitle,
  sanitizeTitle,
  UNTITLED,
} from './session-title.js';

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const count = (text: string) => [...segmenter.segment(text)].length;
// What a terminal could act on: C0, DEL, C1, bidi controls, line separators, lone surrogates.
const HIDDEN = /[\p{Cc}\p{Cs}\p{Zl}\p{Zp}\u202a-\u202e\u2066-\u2069\u200e\u200f]/u;

describe('deriveSessionTitle', () => {
  it('is deterministic, one printable line, capped and never empty for any request', () => {
    const request = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.string({
        unit: fc.constantFrom('\u001b', '[', '\n', '\t', '\u202e', '\u009b', ' ', 'a', '😀'),
        maxLength: 200,
      }),
    );
    fc.assert(
      fc.property(request, (text) => {
        const title = deriveSessionTitle(text);
        expect(deriveSessionTitle(text)).toBe(title);
        expect(title.length).toBeGreaterThan(0);
        expect(title).not.toMatch(HIDDEN);
        expect(title).toBe(title.trim());
        expect(title).not.toMatch(/\s\s/);
        expect(count(title)).toBeLessThanOrEqual(AUTO_TITLE_MAX);
      }),
      { numRuns: 400 },
    );
  });

  it('keeps the words of a short request and cuts a long one at a word with an ellipsis', () => {
    expect(deriveSessionTitle('  Fix the failing\n\tbuild  ')).toBe('Fix the failing build');
    expect(deriveSessionTitle('\u001b]2;pwned\u0007 ls')).toBe(']2;pwned ls');
    expect(deriveSessionTitle('\n\u0000\u202e ')).toBe(UNTITLED);
    const long = deriveSessionTitle(`${'word '.repeat(30)}end`);
    expect(long).toBe(`${'word '.repeat(11).trim()}…`);
    // A grapheme (a flag, a family emoji) is never split.
    const family = '👨‍👩‍👧';
    expect(deriveSessionTitle(family.repeat(80))).toBe(`${family.repeat(59)}…`);
  });

  it('personTitle refuses text with nothing printable', () => {
    expect(personTitle(' \u0007 ')).toBeUndefined();
    expect(personTitle(' Release notes ')).toBe('Release notes');
    expect(sanitizeTitle('a\u2028b', 10)).toBe('a b');
  });
});

describe('recordSessionTitle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spine-title-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('appends a session/title event and keeps the latest title in the index entry', async () => {
    const session = await Session.create({ store: createMemoryStore(), id: 's-title' });
    writeSessionIndex(dir, session.id, { tokens: 5, turns: 1, updatedAt: 'then', costUsd: 0.5 });
    recordSessionTitle(session, dir, 'First', 'auto');
    recordSessionTitle(session, dir, 'Second', 'person');
    const titles = [...session.events()].filter((event) => event.type === 'session/title');
    expect(titles.map((event) => event.body)).toEqual([
      { title: 'First', source: 'auto' },
      { title: 'Second', source: 'person' },
    ]);
    expect(readSessionIndex(dir, session.id)).toMatchObject({ title: 'Second', costUsd: 0.5 });
    expect(currentSessionTitle(dir, session)).toBe('Second');
    // The log format refuses what it does not describe.
    expect(() => session.append('session/title', { title: 'x', source: 'robot' })).toThrow();
    expect(() => session.append('session/title', { title: '', source: 'auto' })).toThrow();
    await session.close();
  });
});
