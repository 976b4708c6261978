import type { AssistantMessageBody, AssistantPart, SessionLog } from '@spine/protocol';
import { foldedState, toolCallIdsFold } from './projections.js';

/** The tool call ids already used in one session, kept up to date incrementally. */
interface UsedIds {
  ids: Set<string>;
  /** The last seq scanned. */
  scanned: number;
}

// Keyed by session: an agent may be handed another session between turns.
const registries = new WeakMap<SessionLog, UsedIds>();

/**
 * Adds the tool call ids of events after the last scanned one (cost: new events only). The
 * first call starts from the session's `agent-loop/tool-call-ids` projection.
 */
function usedIdsOf(session: SessionLog): Set<string> {
  let used = registries.get(session);
  if (!used) {
    used = { ids: new Set(foldedState(session, toolCallIdsFold).ids), scanned: session.lastSeq };
    registries.set(session, used);
  }
  if (session.lastSeq > used.scanned) {
    for (const event of session.events({ from: used.scanned + 1 })) {
      if (event.type !== 'assistant/message') continue;
      const content = (event.body as AssistantMessageBody | undefined)?.content;
      if (!Array.isArray(content)) continue;
      for (const part of content) if (part?.type === 'tool-call') used.ids.add(part.id);
    }
    used.scanned = session.lastSeq;
  }
  return used.ids;
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
  let result: AssistantPart[] | undefined;
  const fresh = new Set<string>();
  let ordinal = 0;
  for (let i = 0; i < content.length; i++) {
    const part = content[i] as AssistantPart;
    if (part.type !== 'tool-call') continue;
    const index = ordinal++;
    if (part.id !== '' && !used.has(part.id) && !fresh.has(part.id)) {
      fresh.add(part.id);
      continue;
    }
    let id = `call_t${at.turn}s${at.step}_${index}`;
    for (let n = 2; used.has(id) || fresh.has(id) || idLaterIn(content, i, id); n++) {
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
