import type {
  OpenedSession,
  SessionEvent,
  SessionHeaderBody,
  SessionRange,
  SessionStore,
  SessionStoreOpenOptions,
  SessionSummary,
  StoredSnapshot,
} from '@spine/protocol';
import {
  SessionClosedError,
  SessionExistsError,
  SessionLockedError,
  SessionNotFoundError,
} from './errors.js';
import { checkRange, filterRange } from './internal/range.js';

interface MemoryRecord {
  events: SessionEvent[];
  blobs: Map<string, Uint8Array>;
  locked: boolean;
  updatedAt: string;
  snapshot?: StoredSnapshot;
}

/** Options of {@link createMemoryStore} (none yet; reserved for growth). */
export type MemoryStoreOptions = Record<string, never>;

function* eventsFrom(events: readonly SessionEvent[], fromSeq: number): Generator<SessionEvent> {
  for (let i = Math.max(0, fromSeq - 1); i < events.length; i++) yield events[i] as SessionEvent;
}

function writerFor(
  id: string,
  record: MemoryRecord,
  readOnly: boolean,
  fromSeq = 1,
): OpenedSession {
  let closed = false;
  const refuse = (): never => {
    throw new SessionClosedError({ sessionId: id, reason: readOnly ? 'read-only' : 'closed' });
  };
  return {
    events: record.events.slice(Math.max(0, fromSeq - 1)),
    lastSeq: record.events.length,
    append(events: readonly SessionEvent[]): void {
      if (closed || readOnly) refuse();
      for (const event of events) record.events.push(event);
      const last = events[events.length - 1];
      if (last) record.updatedAt = last.at;
    },
    async flush(): Promise<void> {},
    checkpoint(): void {},
    blobs: {
      put(sha256: string, bytes: Uint8Array): void {
        if (closed || readOnly) refuse();
        if (!record.blobs.has(sha256)) record.blobs.set(sha256, Uint8Array.from(bytes));
      },
      get(sha256: string): Uint8Array | undefined {
        return record.blobs.get(sha256);
      },
    },
    async writeSnapshot(snapshot: StoredSnapshot): Promise<void> {
      if (closed || readOnly) refuse();
      record.snapshot = { seq: snapshot.seq, data: snapshot.data };
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (!readOnly) record.locked = false;
    },
  };
}

/**
 * Creates a store that keeps sessions in this process's memory, with the same single-writer
 * rule as the file stores. For tests and ephemeral agents.
 *
 * @example
 * ```ts
 * const session = await Session.create({ store: createMemoryStore() });
 * ```
 */
export function createMemoryStore(_options: MemoryStoreOptions = {}): SessionStore {
  const sessions = new Map<string, MemoryRecord>();
  return {
    specificationVersion: 1,
    kind: 'memory',
    async create(header: SessionEvent): Promise<OpenedSession> {
      const id = (header.body as SessionHeaderBody).sessionId;
      if (sessions.has(id)) throw new SessionExistsError({ sessionId: id });
      const record: MemoryRecord = {
        events: [header],
        blobs: new Map(),
        locked: true,
        updatedAt: header.at,
      };
      sessions.set(id, record);
      return writerFor(id, record, false);
    },
    async open(sessionId: string, options: SessionStoreOpenOptions = {}): Promise<OpenedSession> {
      const record = sessions.get(sessionId);
      if (!record) throw new SessionNotFoundError({ sessionId, where: 'the memory store' });
      const readOnly = options.readOnly ?? false;
      if (!readOnly) {
        if (record.locked) throw new SessionLockedError({ sessionId, pid: process.pid });
        record.locked = true;
      }
      return writerFor(sessionId, record, readOnly, options.fromSeq);
    },
    async *readRange(sessionId: string, range: SessionRange): AsyncIterable<SessionEvent> {
      checkRange(range);
      const record = sessions.get(sessionId);
      if (!record) throw new SessionNotFoundError({ sessionId, where: 'the memory store' });
      yield* filterRange(eventsFrom(record.events, range.fromSeq), range);
    },
    async readSnapshot(sessionId: string): Promise<StoredSnapshot | undefined> {
      const record = sessions.get(sessionId);
      if (!record) throw new SessionNotFoundError({ sessionId, where: 'the memory store' });
      return record.snapshot && { ...record.snapshot };
    },
    async exists(sessionId: string): Promise<boolean> {
      return sessions.has(sessionId);
    },
    async list(options: { limit?: number } = {}): Promise<SessionSummary[]> {
      const all = [...sessions.entries()].map(([id, record]) => ({
        id,
        header: record.events[0]!.body as SessionHeaderBody,
        updatedAt: record.updatedAt,
      }));
      all.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
      return options.limit === undefined ? all : all.slice(0, options.limit);
    },
  };
}
