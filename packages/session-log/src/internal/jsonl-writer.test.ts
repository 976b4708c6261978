// A write the file system refuses (here ENOSPC, from /dev/full) fails the JSONL writer with a
// StoreUnavailableError naming the log file and the code, and every later append throws it again.
import { existsSync, openSync } from 'node:fs';
import type { SessionEvent } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../errors.js';
import { JsonlWriter } from './jsonl-writer.js';

const FULL = '/dev/full';

describe.skipIf(!existsSync(FULL))('JsonlWriter on a full disk', () => {
  it('fails with STORE_UNAVAILABLE (ENOSPC) naming the log, and keeps failing', async () => {
    let released = false;
    const writer = new JsonlWriter({
      sessionId: 's',
      path: '/sessions/s.jsonl',
      fd: openSync(FULL, 'w'),
      events: [],
      lastSeq: 1,
      chain: true,
      chainHead: '',
      repaired: undefined,
      fsync: 'never',
      readOnly: false,
      flushBytes: 0,
      flushIntervalMs: 20,
      durableTypes: new Set(),
      release: () => {
        released = true;
      },
    });
    const event = (seq: number): SessionEvent => ({
      seq,
      type: 'user/message',
      at: '2026-01-01T00:00:00.000Z',
      body: { content: 'x', source: 'user' },
    });
    let first: unknown;
    try {
      writer.append([event(2)]);
    } catch (error) {
      first = error;
    }
    expect(first).toBeInstanceOf(StoreUnavailableError);
    expect(first).toMatchObject({
      code: 'STORE_UNAVAILABLE',
      systemCode: 'ENOSPC',
      path: '/sessions/s.jsonl',
      cause: expect.objectContaining({ code: 'ENOSPC', syscall: 'write' }),
      message:
        'Cannot append to session s: write /sessions/s.jsonl failed with ENOSPC (no space left on device); the disk is full; free space, then open the session again',
    });
    expect(() => writer.append([event(3)])).toThrow(first as Error);
    await writer.close();
    expect(released).toBe(true);
  });
});
