// The state the agent loop reads back from a session log, as folds over its events. Registered
// with a session (`Session.open({ projections: agentLoopProjections })`), they are kept in its
// snapshots, so a lazily opened session (which holds only the surface and the events since its
// snapshot) answers exactly as a fully read one. Without registration they are folded over
// `session.events()`, which is only allowed when the session holds every event.
import type {
  AssistantMessageBody,
  AttemptBody,
  InboxItem,
  InboxQueue,
  InboxSplicedBody,
  JsonValue,
  PromptSystemBody,
  RequestHeaderBody,
  SessionEvent,
  SessionLog,
  ToolCallPart,
  ToolResultBody,
  ToolsDefinedBody,
  Usage,
  UserMessageBody,
} from '@spine/protocol';
import { addUsage } from '@spine/protocol';
import { PartialHistoryError } from './errors.js';
import {
  emptyIdWindow,
  type IdWindowSizes,
  type IdWindowState,
  migrateIdList,
  migrateSingleFilter,
  recordId,
} from './internal/id-window.js';
import { fromRanges } from './internal/seq-ranges.js';
import type { OpenTurn } from './recovery.js';

/**
 * A named, versioned fold over a session's events, the shape `@spine/session-log`'s
 * `SessionProjection` takes (`Session.create` / `Session.open` option `projections`).
 */
export interface LoopProjection {
  /** Unique name within a session. */
  readonly name: string;
  /** The fold's version; a snapshot holding another version is refolded from the log. */
  readonly version: number;
  /** The state before any event. */
  initial(): JsonValue;
  /** The state after `event` (changed in place). */
  apply(state: JsonValue, event: SessionEvent): JsonValue;
  /** The event types `apply` reads (others leave the state as it is); omitted: every type. */
  readonly types?: readonly string[];
  /** The state in this version from a snapshot's state of an older `version` (undefined: refold). */
  migrate?(state: JsonValue, version: number): JsonValue | undefined;
}

/** A fold with its state's type (internal; published as {@link LoopProjection}). */
export interface Fold<State> {
  readonly name: string;
  readonly version: number;
  initial(): State;
  apply(state: State, event: SessionEvent): State;
  /** The event types `apply` reads (a session folds no other type into it); omitted: all. */
  readonly types?: readonly string[];
  /** The state from an older version's (undefined: fold again from the log). */
  migrate?(state: JsonValue, version: number): State | undefined;
}

/** The current state of `fold` for `session`: registered, or folded over the events held. */
export function foldedState<State>(session: SessionLog, fold: Fold<State>): State {
  if (typeof session.projection === 'function') {
    let registered: State | undefined;
    try {
      registered = session.projection(fold.name) as State;
    } catch {
      registered = undefined; // not registered with this session: fold below
    }
    if (registered !== undefined) return registered;
  }
  const events = session.events();
  if (events.length !== session.lastSeq) {
    throw new PartialHistoryError({ sessionId: session.id, projection: fold.name });
  }
  let state = fold.initial();
  const types = fold.types ? new Set(fold.types) : undefined;
  for (const event of events) if (!types || types.has(event.type)) state = fold.apply(state, event);
  return state;
}

/**
 * Throws unless `session` holds every event (a lazily opened one does not), for readers that
 * need the whole log (`replay`).
 */
export function assertWholeHistory(session: SessionLog, reader: string): void {
  if (session.events().length !== session.lastSeq) {
    throw new PartialHistoryError({ sessionId: session.id, reader });
  }
}

/** Inbox queues as the splices left them, and which queued ids a `user/message` consumed. */
export interface InboxState {
  queues: Record<InboxQueue, InboxItem[]>;
  consumed: string[];
}

/** The inbox: every `agent/inbox/spliced`, and the ids `user/message`s consumed. */
export const inboxFold: Fold<InboxState> = {
  name: 'agent-loop/inbox',
  version: 1,
  types: ['agent/inbox/spliced', 'user/message'],
  initial: () => ({ queues: { 'next-turn': [], 'next-step': [] }, consumed: [] }),
  apply(state, event) {
    if (event.type === 'agent/inbox/spliced') {
      const body = event.body as InboxSplicedBody;
      const queue = state.queues[body?.queue];
      if (!Array.isArray(queue) || !Array.isArray(body.insert)) return state; // not a splice
      const removed = queue.splice(body.start, body.deleteCount, ...body.insert);
      if (removed.length > 0 && state.consumed.length > 0) {
        const gone = new Set(removed.map((item) => item.id));
        state.consumed = state.consumed.filter((id) => !gone.has(id));
      }
    } else if (event.type === 'user/message') {
      const id = (event.body as UserMessageBody | undefined)?.meta?.inboxId;
      if (typeof id === 'string' && !state.consumed.includes(id) && queued(state, id)) {
        state.consumed.push(id);
      }
    }
    return state;
  },
};

function queued(state: InboxState, id: string): boolean {
  return (
    state.queues['next-turn'].some((item) => item.id === id) ||
    state.queues['next-step'].some((item) => item.id === id)
  );
}

/** The last runtime-context message: its seq and snapshot (null: none, or one without a snapshot). */
export interface RuntimeContextState {
  last: { seq: number; snapshot: Record<string, string> } | null;
}

/** The last `user/message` with `source: 'runtime-context'`. */
export const runtimeContextFold: Fold<RuntimeContextState> = {
  name: 'agent-loop/runtime-context',
  version: 1,
  types: ['user/message'],
  initial: () => ({ last: null }),
  apply(state, event) {
    if (event.type !== 'user/message') return state;
    const body = event.body as UserMessageBody | undefined;
    if (body?.source !== 'runtime-context') return state;
    const snapshot = body.meta?.snapshot;
    state.last =
      snapshot && typeof snapshot === 'object' && !Array.isArray(snapshot)
        ? { seq: event.seq, snapshot: snapshot as Record<string, string> }
        : null;
    return state;
  },
};

/** Turn numbers, usage totals and the interrupted turn (see `restoreLoopState`). */
export interface LoopState {
  lastTurn: number;
  usage: Usage;
  open: OpenTurn | null;
  /** The tool calls of the open step's assistant message. */
  calls: ToolCallPart[];
  /** Tool call ids answered in the open step. */
  results: string[];
}

/** Where the last turn stopped, and the session's usage totals. */
export const loopStateFold: Fold<LoopState> = {
  name: 'agent-loop/turns',
  version: 1,
  initial: () => ({
    lastTurn: 0,
    usage: { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 },
    open: null,
    calls: [],
    results: [],
  }),
  apply(state, event) {
    if (event.turn !== undefined && event.turn > state.lastTurn) state.lastTurn = event.turn;
    const open = state.open;
    switch (event.type) {
      case 'turn/start':
        state.open = {
          turn: event.turn ?? state.lastTurn,
          step: 0,
          phase: 'done',
          attempt: 0,
          attemptRecorded: true,
          pendingCalls: [],
        };
        state.calls = [];
        state.results = [];
        break;
      case 'turn/end':
        state.open = null;
        break;
      case 'step/start':
        if (open) {
          open.step = event.step ?? open.step + 1;
          open.phase = 'stream';
          open.attempt = 0;
          open.attemptRecorded = true;
          delete open.headerSeq;
          state.calls = [];
          state.results = [];
        }
        break;
      case 'request/header':
        if (open) {
          open.attempt = (event.body as RequestHeaderBody | undefined)?.attempt ?? 0;
          open.headerSeq = event.seq;
          open.attemptRecorded = false;
        }
        break;
      case 'assistant/attempt':
        if (open && (event.body as AttemptBody | undefined)?.request === open.headerSeq)
          open.attemptRecorded = true;
        break;
      case 'assistant/message': {
        const body = event.body as AssistantMessageBody | undefined;
        if (body?.usage) state.usage = addUsage(state.usage, body.usage);
        if (open) {
          open.phase = 'tools';
          state.calls = Array.isArray(body?.content)
            ? body.content.filter((part): part is ToolCallPart => part?.type === 'tool-call')
            : [];
        }
        break;
      }
      case 'tool/result':
        // Only the open step's results matter; turn/start and step/start clear them.
        if (open)
          state.results.push((event.body as ToolResultBody | undefined)?.toolCallId as string);
        break;
      case 'step/end':
        if (open) open.phase = 'done';
        break;
    }
    return state;
  },
};

/** What the request builder restores: stored prompt hashes and the last request with its seqs. */
export interface RequestRecordState {
  systems: string[];
  tools: string[];
  last: { seq: number; body: RequestHeaderBody } | null;
  /** The message seqs of `last`, resolved (null when its base was not the previous header). */
  seqs: number[] | null;
}

/** Prompt and tool hashes stored so far, and the last `request/header` with its message seqs. */
export const requestRecordFold: Fold<RequestRecordState> = {
  name: 'agent-loop/requests',
  version: 1,
  types: ['prompt/system', 'tools/defined', 'request/header'],
  initial: () => ({ systems: [], tools: [], last: null, seqs: null }),
  apply(state, event) {
    if (event.type === 'prompt/system') {
      const hash = (event.body as PromptSystemBody | undefined)?.hash;
      if (typeof hash === 'string' && !state.systems.includes(hash)) state.systems.push(hash);
    } else if (event.type === 'tools/defined') {
      const hash = (event.body as ToolsDefinedBody | undefined)?.hash;
      if (typeof hash === 'string' && !state.tools.includes(hash)) state.tools.push(hash);
    } else if (event.type === 'request/header') {
      const body = event.body as RequestHeaderBody;
      const recorded = body?.seqs;
      if (!body || !recordedSeqsOk(recorded)) {
        // Not a header this builder wrote: its seqs are resolved through the log if needed.
        state.seqs = null;
        if (body) state.last = { seq: event.seq, body };
        return state;
      }
      if (recorded.base === undefined) state.seqs = fromRanges(recorded.ranges, []);
      else if (state.seqs && state.last?.seq === recorded.base) {
        state.seqs.length = Math.min(state.seqs.length, recorded.keep ?? 0);
        fromRanges(recorded.ranges, state.seqs);
      } else state.seqs = null;
      state.last = { seq: event.seq, body };
    }
    return state;
  },
};

/** True for recorded seqs as the builder writes them (bounded runs of safe integers). */
function recordedSeqsOk(recorded: RequestHeaderBody['seqs'] | undefined): boolean {
  if (!recorded || !Array.isArray(recorded.ranges)) return false;
  if (recorded.base !== undefined && !Number.isSafeInteger(recorded.base)) return false;
  if (recorded.keep !== undefined && !Number.isSafeInteger(recorded.keep)) return false;
  for (const range of recorded.ranges) {
    if (!Array.isArray(range)) return false;
    const [start, end] = range;
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return false;
    if ((end as number) < (start as number) || (end as number) - (start as number) > 10_000_000)
      return false;
  }
  return true;
}

/** The tool call ids the session's assistant messages used (see internal/id-window.ts). */
export type ToolCallIdsState = IdWindowState;

/**
 * Tool call ids used so far (ids must stay unique in a session), in a state bounded whatever
 * their number: the first and the newest 1,024 exactly, the others in Bloom filters sized to what
 * they hold, 256 KiB at most together (version 3; version 2's one filter, always 256 KiB, is
 * folded to that size and version 1's list of every id refolded, both without reading the log).
 * `sizes` is for tests that reach the filters with a few ids.
 */
export function createToolCallIdsFold(sizes?: Partial<IdWindowSizes>): Fold<ToolCallIdsState> {
  return {
    name: 'agent-loop/tool-call-ids',
    version: 3,
    types: ['assistant/message'],
    initial: () => emptyIdWindow(sizes),
    apply(state, event) {
      if (event.type !== 'assistant/message') return state;
      const content = (event.body as AssistantMessageBody | undefined)?.content;
      if (!Array.isArray(content)) return state;
      for (const part of content) if (part?.type === 'tool-call') recordId(state, part.id);
      return state;
    },
    migrate(state, version) {
      if (version === 2) return migrateSingleFilter(state, sizes);
      const ids = (state as { ids?: unknown } | null)?.ids;
      if (version !== 1 || !Array.isArray(ids)) return undefined;
      return migrateIdList(ids as string[], sizes);
    },
  };
}

/** {@link createToolCallIdsFold} with the default sizes: the one the agent loop registers. */
export const toolCallIdsFold: Fold<ToolCallIdsState> = createToolCallIdsFold();

/** Tool calls that reached `tool/started` and have no `tool/result` yet. */
export interface StartedCallsState {
  ids: string[];
}

/** Started calls without a result (what "outcome unknown" answers are given for). */
export const startedCallsFold: Fold<StartedCallsState> = {
  name: 'agent-loop/started-calls',
  version: 1,
  types: ['tool/started', 'tool/result'],
  initial: () => ({ ids: [] }),
  apply(state, event) {
    if (event.type === 'tool/started') {
      const id = (event.body as { toolCallId?: unknown } | undefined)?.toolCallId;
      if (typeof id === 'string' && !state.ids.includes(id)) state.ids.push(id);
    } else if (event.type === 'tool/result' && state.ids.length > 0) {
      const id = (event.body as ToolResultBody | undefined)?.toolCallId as string;
      const index = state.ids.indexOf(id);
      if (index >= 0) state.ids.splice(index, 1);
    }
    return state;
  },
};

/**
 * The agent loop's projections. Pass them to `Session.create` / `Session.open` (option
 * `projections`) for every session an agent runs on; a session opened with `history: 'lazy'`
 * must have them, a fully read one falls back to folding its events.
 *
 * @example
 * ```ts
 * const session = await Session.open({ store, id, history: 'lazy', projections: agentLoopProjections });
 * const agent = createAgent({ session, model, modelId, tools });
 * ```
 */
export const agentLoopProjections: readonly LoopProjection[] = [
  inboxFold,
  runtimeContextFold,
  loopStateFold,
  requestRecordFold,
  toolCallIdsFold,
  startedCallsFold,
] as unknown as readonly LoopProjection[];

/** A deep copy of plain JSON state (registered states are live and changed in place). */
export function copyState<State>(state: State): State {
  return structuredClone(state);
}
