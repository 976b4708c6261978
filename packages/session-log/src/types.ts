import type { EventTypeDefinition, JsonObject, Projector, SessionStore } from '@spine/protocol';

/** Options of `Session.create`. */
export interface SessionCreateOptions {
  /** Where the session is stored. */
  store: SessionStore;
  /** The session id; a random UUID when omitted. */
  id?: string;
  /** The working directory the session runs in. */
  cwd?: string;
  /** A human-readable title. */
  title?: string;
  /** The model the session started with. */
  model?: string;
  /** The session and seq this one was forked from. */
  parent?: { sessionId: string; atSeq: number };
  /** Free-form JSON metadata stored in the header. */
  meta?: JsonObject;
  /** Custom event types to register before anything is appended. */
  eventTypes?: readonly EventTypeDefinition[];
  /** Replaces the default projector for built-in surface types. */
  projector?: Projector;
}

/** Options of `Session.open`. */
export interface SessionOpenOptions {
  /** Where the session is stored. */
  store: SessionStore;
  /** The session id. */
  id: string;
  /** Read without taking the writer lock; appends are refused and nothing is repaired on disk. */
  readOnly?: boolean;
  /** Answer tool calls a crash left without a result (default true). */
  recover?: boolean;
  /** Custom event types the stored session uses. */
  eventTypes?: readonly EventTypeDefinition[];
  /** Replaces the default projector for built-in surface types. */
  projector?: Projector;
}

/** Options of `Session.fork`. */
export interface SessionForkOptions {
  /** Where the fork is stored (default: the parent's store). */
  store?: SessionStore;
  /** The fork's id; a random UUID when omitted. */
  id?: string;
  /** Answer tool calls left open at the fork point (default true). */
  recover?: boolean;
}

/** When appended events reach the disk: on every append, at turn boundaries, or only on flush. */
export type FsyncPolicy = 'always' | 'per-turn' | 'never';
