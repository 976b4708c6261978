import type {
  AssistantMessageBody,
  AssistantPart,
  SessionEvent,
  SessionLog,
  SessionRange,
} from '@spine/protocol';
import { filtersMayHave, type IdWindowState, isIdWindow } from './internal/id-window.js';
import { foldedState, toolCallIdsFold } from './projections.js';

/**
 * The tool call ids already used in one session, kept up to date incrementally: the projection's
 * window (exact at both ends, Bloom filters between), the ids seen since in this process, and
 * the exact answers of log scans for the filter's "maybe".
 */
interface UsedIds {
  window: IdWindowState;
  /** Ids known used exactly: the window's two ends when read, and every id seen since. */
  exact: Set<string>;
  /** Filter hits settled by a scan of the log: true when the id was used. */
  settled: Map<string, boolean>;
  /** The last seq scanned. */
  scanned: number;
}

// Keyed by session: an agent may be handed another session between turns.
const registries = new WeakMap<SessionLog, UsedIds>();

/** Ids of the tool calls an event proposes (assistant messages only). */
function callIdsOf(event: SessionEvent): string[] {
  if (event.type !== 'assistant/message') return [];
  const content = (event.body as AssistantMessageBody | undefined)?.content;
  if (!Array.isArray(content)) return [];
  const ids: string[] = [];
  for (const part of content) if (part?.type === 'tool-call') ids.push(part.id);
  return ids;
}

/**
 * Adds the tool call ids of events after the last scanned one (cost: new events only). The
 * first call starts from the session's `agent-loop/tool-call-ids` projection.
 */
function usedIdsOf(session: SessionLog): UsedIds {
  let used = registries.get(session);
  if (!used) {
    const state = foldedState(session, toolCallIdsFold) as unknown;
    // A state of another shape (a projection registered by someone else): fold the held log.
    const window = isIdWindow(state) ? state : toolCallIdsFold.initial();
    const exact = new Set([...window.first, ...window.newest]);
    used = { window, exact, settled: new Map(), scanned: session.lastSeq };
    registries.set(session, used);
  }
  if (session.lastSeq > used.scanned) {
    for (const event of session.events({ from: used.scanned + 1 })) {
      for (const id of callIdsOf(event)) used.exact.add(id);
    }
    used.scanned = session.lastSeq;
  }
  return used;
}

/** Whether `id` was used: exactly, or `undefined` for a filter hit no scan has settled yet. */
function wasUsed(used: UsedIds, id: string): boolean | undefined {
  if (used.exact.has(id)) return true;
  if (!filtersMayHave(used.window, id)) return false;
  return used.settled.get(id);
}

/**
 * Settles, by one exact scan of the log, every filter hit {@link assignToolCallIds} would ask
 * about for this answer. Returns undefined (nothing to wait for) unless the answer meets a
 * "maybe" of the filter, which is rare; call it before `assignToolCallIds`, so that the ids
 * assigned are those an exact set of every used id gives.
 */
export function settleToolCallIds(
  session: SessionLog,
  content: readonly AssistantPart[],
  at: { turn: number; step: number },
): Promise<void> | undefined {
  const used = usedIdsOf(session);
  if (used.window.filters.length === 0) return undefined;
  const unsettled = new Set<string>();
  assign(content, at, (id) => {
    const known = wasUsed(used, id);
    if (known === undefined) unsettled.add(id);
    return known ?? false;
  });
  if (unsettled.size === 0) return undefined;
  return settle(session, used, content, at, unsettled);
}

/** Scans the log for `ids` (and again for ids a settled answer makes the answer ask about). */
async function settle(
  session: SessionLog,
  used: UsedIds,
  content: readonly AssistantPart[],
  at: { turn: number; step: number },
  ids: Set<string>,
): Promise<void> {
  let wanted = ids;
  while (wanted.size > 0) {
    const found = await scanFor(session, wanted, used.scanned);
    for (const id of wanted) used.settled.set(id, found.has(id));
    const next = new Set<string>();
    assign(content, at, (id) => {
      const known = wasUsed(used, id);
      if (known === undefined) next.add(id);
      return known ?? false;
    });
    wanted = next;
  }
}

/** Which of `ids` a tool call of an assistant message up to `toSeq` used: an exact scan. */
async function scanFor(session: SessionLog, ids: Set<string>, toSeq: number): Promise<Set<string>> {
  const found = new Set<string>();
  const note = (event: SessionEvent): void => {
    for (const id of callIdsOf(event)) if (ids.has(id)) found.add(id);
  };
  const reader = (session as { readEvents?: (range: SessionRange) => AsyncIterable<SessionEvent> })
    .readEvents;
  if (session.events().length === session.lastSeq || typeof reader !== 'function') {
    // Every event held (or no way to read others): what is held is what there is.
    for (const event of session.events({ to: toSeq })) note(event);
    if (typeof reader !== 'function' && session.events().length !== session.lastSeq) {
      for (const id of ids) found.add(id); // unknowable: taken as used, never reused
    }
    return found;
  }
  const range: SessionRange = { fromSeq: 1, toSeq, types: ['assistant/message'] };
  for await (const event of reader.call(session, range)) note(event);
  return found;
}

/**
 * Makes every tool call id of a model's answer unique in the session before it is recorded.
 * Tool call ids are the provider's business, uniqueness in the session is Spine's: an id that
 * is empty, repeated in the answer or already used earlier in the session (servers that send
 * `""` or `call_0` every time) is replaced by `call_t<turn>s<step>_<n>` (suffixed until it is
 * free), and the id the provider sent is kept as `providerId` (an id the client already had
 * to replace keeps the client's record of the original). The result depends only on the log
 * and the answer, so a rerun assigns the same ids. Returns `content` itself when nothing changes.
 */
export function assignToolCallIds(
  session: SessionLog,
  content: readonly AssistantPart[],
  at: { turn: number; step: number },
): AssistantPart[] {
  const used = usedIdsOf(session);
  // An unsettled filter hit (settleToolCallIds not awaited first) counts as used: never reused.
  return assign(content, at, (id) => wasUsed(used, id) ?? true);
}

/** The assignment, with `isUsed` answering for ids used before this answer. */
function assign(
  content: readonly AssistantPart[],
  at: { turn: number; step: number },
  isUsed: (id: string) => boolean,
): AssistantPart[] {
  let result: AssistantPart[] | undefined;
  const fresh = new Set<string>();
  let ordinal = 0;
  for (let i = 0; i < content.length; i++) {
    const part = content[i] as AssistantPart;
    if (part.type !== 'tool-call') continue;
    const index = ordinal++;
    if (part.id !== '' && !fresh.has(part.id) && !isUsed(part.id)) {
      fresh.add(part.id);
      continue;
    }
    let id = `call_t${at.turn}s${at.step}_${index}`;
    for (let n = 2; fresh.has(id) || idLaterIn(content, i, id) || isUsed(id); n++) {
      id = `call_t${at.turn}s${at.step}_${index}_${n}`;
    }
    fresh.add(id);
    result ??= [...content];
    result[i] = { ...part, id, providerId: part.providerId ?? part.id };
  }
  return result ?? (content as AssistantPart[]);
}

/** True when a tool call after position `from` already carries `id` (it keeps it). */
function idLaterIn(content: readonly AssistantPart[], from: number, id: string): boolean {
  for (let i = from + 1; i < content.length; i++) {
    const part = content[i] as AssistantPart;
    if (part.type === 'tool-call' && part.id === id) return true;
  }
  return false;
}
