import type { OpenedSession, SessionStore } from '@spine/protocol';
import { createMemoryStore } from '@spine/session-log';
import { checkSessionStore, storeConformanceCases } from '@spine/session-log/testing';
import { describe, expect, it } from 'vitest';

// The suite must be able to fail: real stores wrapped to break one promise each.

type OpenHook = (opened: OpenedSession) => OpenedSession;

/**
 * A memory store whose open() results go through `hook`, whose locks can be ignored and whose
 * range reads can ignore `limit`.
 */
function brokenMemoryStore(options: {
  hook?: OpenHook;
  ignoreLocks?: boolean;
  ignoreLimit?: boolean;
}): SessionStore {
  const inner = createMemoryStore();
  const hook = options.hook ?? ((opened) => opened);
  return {
    specificationVersion: 1,
    kind: 'broken-memory',
    create: (header) => inner.create(header),
    exists: (id) => inner.exists(id),
    list: (listOptions) => inner.list(listOptions),
    readSnapshot: (id) => inner.readSnapshot(id),
    readRange: (id, range) =>
      inner.readRange(id, options.ignoreLimit ? { ...range, limit: undefined } : range),
    async open(id, openOptions) {
      if (options.ignoreLocks) return hook(await inner.open(id, { readOnly: true }));
      return hook(await inner.open(id, openOptions));
    },
  };
}

function withEvents(opened: OpenedSession, events: OpenedSession['events']): OpenedSession {
  return {
    events,
    lastSeq: opened.lastSeq,
    append: (appended) => opened.append(appended),
    writeSnapshot: (snapshot) => opened.writeSnapshot(snapshot),
    flush: () => opened.flush(),
    checkpoint: () => opened.checkpoint?.(),
    close: () => opened.close(),
  };
}

function failureOf(report: Awaited<ReturnType<typeof checkSessionStore>>, name: string): string {
  const failure = report.failed.find((entry) => entry.name.startsWith(name));
  expect(failure, `expected "${name}" among ${JSON.stringify(report.failed)}`).toBeDefined();
  return failure!.message;
}

describe('checkSessionStore', () => {
  it('passes every case for the memory store and names no failure', async () => {
    const report = await checkSessionStore(() => ({ store: createMemoryStore() }));
    expect(report).toEqual({ ok: true, passed: storeConformanceCases.length, failed: [] });
  });

  it('reports a store that drops the last committed event on open, saying what went missing', async () => {
    const report = await checkSessionStore(() => ({
      store: brokenMemoryStore({
        hook: (opened) => withEvents(opened, opened.events.slice(0, -1)),
      }),
    }));
    expect(report.ok).toBe(false);
    expect(report.passed + report.failed.length).toBe(storeConformanceCases.length);
    const message = failureOf(report, 'stores appended events and reads them back');
    expect(message).toMatch(
      /^round trip: the events after reopening: expected 5 items, got 4 \(at \.length\); the first missing item is \{ seq: 5, type: 'user\/message'/,
    );
  });

  it('reports a store that returns events out of order', async () => {
    const report = await checkSessionStore(() => ({
      store: brokenMemoryStore({
        hook: (opened) =>
          withEvents(opened, [opened.events[0]!, ...opened.events.slice(1).reverse()]),
      }),
    }));
    expect(failureOf(report, 'keeps 2,000 events gapless')).toMatch(
      '2,000 events: the events after reopening: expected 2, got 2001 (at [1].seq)',
    );
  });

  it('reports a store that loses the header, with the SESSION_CORRUPT error it caused', async () => {
    const report = await checkSessionStore(() => ({
      store: brokenMemoryStore({ hook: (opened) => withEvents(opened, opened.events.slice(1)) }),
    }));
    expect(failureOf(report, 'stores appended events')).toMatch(
      /unexpectedly threw SessionCorruptError with code SESSION_CORRUPT: .*not a session\/header/,
    );
  });

  it('reports a store that lets a second writer in as missing SESSION_LOCKED', async () => {
    const report = await checkSessionStore(() => ({
      store: brokenMemoryStore({ ignoreLocks: true }),
    }));
    expect(failureOf(report, 'gives a second writer SESSION_LOCKED')).toBe(
      'opening for writing while the creating Session holds the session: expected a SpineError with code SESSION_LOCKED, but it succeeded',
    );
  });

  it('reports a store whose range reads ignore limit, naming the seqs it read', async () => {
    const report = await checkSessionStore(() => ({
      store: brokenMemoryStore({ ignoreLimit: true }),
    }));
    expect(failureOf(report, 'readRange streams a seq range')).toMatch(
      /readRange\(\{ fromSeq: 10, types: \['note\/a'\], limit: 4 \}\): the seqs read: expected 4 items, got \d+/,
    );
  });

  it('reports a factory that throws, a dispose that throws and a case that hangs, and still finishes', async () => {
    let calls = 0;
    const report = await checkSessionStore(
      () => {
        calls++;
        if (calls === 1) throw new Error('no database');
        const store = createMemoryStore();
        if (calls === 2) return { store, dispose: () => Promise.reject(new Error('rm failed')) };
        if (calls === 3) return { store: { ...store, open: () => new Promise<never>(() => {}) } };
        return { store };
      },
      { timeoutMs: 200 },
    );
    const [first, second, third] = report.failed;
    expect(first?.message).toBe('the store factory threw Error: no database');
    expect(second?.message).toBe('passed, but dispose() afterwards threw Error: rm failed');
    expect(third?.message).toBe('did not finish within 200 ms (a store call never settled?)');
    expect(report.passed).toBe(storeConformanceCases.length - 3);
  });

  it('stops before the next case when its signal aborts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(
      checkSessionStore(() => ({ store: createMemoryStore() }), { signal: controller.signal }),
    ).rejects.toThrow('stop');
  });
});
