import { basename, dirname } from 'node:path';
import type { JsonValue, SessionEvent, SpineError } from '@spine/protocol';
import { createJsonlStore, Session, verifyJsonlLog } from '@spine/session-log';
import { AI_SDK_EVENT_TYPES, type AiSdkCallBody, type AiSdkToolsBody } from './event-types.js';
import {
  canonicalJson,
  chainMessage,
  EMPTY_CHAIN,
  requestHashOf,
  sha256,
} from './internal/canonical.js';

/** What kind of problem {@link verifyRecording} found first. */
export type RecordingProblemKind =
  /** The JSONL chain is broken: a line was altered, removed, inserted or reordered. */
  | 'chain'
  /** A call's rebuilt prompt, or a tool list, does not hash to the recorded value. */
  | 'hash'
  /** An event refers to a call, tool list or message that is not in the log before it. */
  | 'reference'
  /** An `ai-sdk/*` event's body is not in the recorder's shape. */
  | 'malformed';

/** The first problem {@link verifyRecording} found. */
export interface RecordingProblem {
  /** What is wrong. */
  kind: RecordingProblemKind;
  /** The seq of the first altered or inconsistent event. */
  seq: number;
  /** A sentence naming the event and what is wrong. */
  message: string;
}

/** What {@link verifyRecording} resolves to. */
export interface VerifyRecordingResult {
  /** True when every recorded prompt rebuilds to its hash (and, for a file, the chain holds). */
  ok: boolean;
  /** `ai-sdk/call` events checked. */
  calls: number;
  /** `ai-sdk/response` events seen. */
  responses: number;
  /** Seqs of calls without a response (a crash or a process that stopped mid-call). */
  unanswered: number[];
  /** The first problem, when not `ok`. */
  problem?: RecordingProblem;
}

/** Something {@link verifyRecording} can read events from: a live or opened `Session`. */
export interface RecordedEvents {
  /** Every event, in seq order. */
  events(): readonly SessionEvent[];
}

function problem(
  kind: RecordingProblemKind,
  seq: number,
  message: string,
  counts: Pick<VerifyRecordingResult, 'calls' | 'responses' | 'unanswered'>,
): VerifyRecordingResult {
  return { ok: false, ...counts, problem: { kind, seq, message: `event ${seq}: ${message}` } };
}

/** Rebuilds every recorded prompt from the events and checks the hashes. */
export function verifyRecordedEvents(events: readonly SessionEvent[]): VerifyRecordingResult {
  const tools = new Set<string>();
  const prompts = new Map<number, { messages: JsonValue[]; chain: string[] }>();
  const open = new Set<number>();
  const counts = { calls: 0, responses: 0, unanswered: [] as number[] };
  for (const event of events) {
    const seq = event.seq;
    const definition = AI_SDK_EVENT_TYPES.find((type) => type.type === event.type);
    if (!definition) continue;
    const invalid = definition.validate?.(event.body);
    if (invalid) return problem('malformed', seq, `${event.type} ${invalid}`, counts);
    if (event.type === 'ai-sdk/tools') {
      const body = event.body as AiSdkToolsBody;
      if (sha256(canonicalJson(body.tools)) !== body.hash)
        return problem(
          'hash',
          seq,
          'the tool list does not match its recorded hash (altered)',
          counts,
        );
      tools.add(body.hash);
    } else if (event.type === 'ai-sdk/call') {
      counts.calls++;
      const body = event.body as AiSdkCallBody;
      let messages: JsonValue[] = [];
      let chain: string[] = [];
      if (body.base) {
        const base = prompts.get(body.base.seq);
        if (
          !base ||
          body.base.seq >= seq ||
          body.base.keep > base.messages.length ||
          body.base.keep < 1
        )
          return problem(
            'reference',
            seq,
            `its prompt starts from call ${body.base.seq}, which has no ${body.base.keep} recorded messages before it`,
            counts,
          );
        messages = base.messages.slice(0, body.base.keep);
        chain = base.chain.slice(0, body.base.keep);
      }
      let hash = chain.length > 0 ? (chain[chain.length - 1] as string) : EMPTY_CHAIN;
      for (const message of body.messages) {
        hash = chainMessage(hash, message);
        messages.push(message);
        chain.push(hash);
      }
      if (body.toolsHash !== null && !tools.has(body.toolsHash))
        return problem(
          'reference',
          seq,
          `its tool list ${body.toolsHash.slice(0, 12)}… is not recorded before it`,
          counts,
        );
      const requestHash = requestHashOf({
        mode: body.mode,
        provider: body.provider,
        modelId: body.modelId,
        settings: body.settings,
        toolsHash: body.toolsHash,
        messagesHash: hash,
      });
      if (hash !== body.messagesHash || requestHash !== body.requestHash)
        return problem(
          'hash',
          seq,
          `the rebuilt prompt of this ${body.mode} call (${messages.length} messages) does not match its recorded request hash (altered)`,
          counts,
        );
      prompts.set(seq, { messages, chain });
      open.add(seq);
    } else {
      counts.responses++;
      const call = (event.body as { call: number }).call;
      if (!prompts.has(call))
        return problem(
          'reference',
          seq,
          `it answers call ${call}, which is not an ai-sdk/call before it`,
          counts,
        );
      open.delete(call);
    }
  }
  counts.unanswered = [...open];
  return { ok: true, ...counts };
}

/**
 * Verifies a recording: rebuilds each model call's prompt from the log (its base call's messages
 * plus the ones it recorded), recomputes the canonical request hash and compares it with the
 * recorded one, naming the first event that does not match. Given the path of a JSONL session
 * file, it first checks the file's chain with `verifyJsonlLog`, which names the first altered,
 * removed, inserted or reordered line of any type.
 *
 * Contract: resolves with `{ ok: false, problem }` for a damaged log, never throws for one.
 *
 * @throws a {@link SpineError} when the file cannot be opened at all (missing, locked by a corrupt
 *   store).
 * @example
 * ```ts
 * const result = await verifyRecording('.spine/sessions/1f0c….jsonl');
 * if (!result.ok) console.error(result.problem?.message);
 * ```
 */
export async function verifyRecording(
  log: string | RecordedEvents,
): Promise<VerifyRecordingResult> {
  if (typeof log !== 'string') return verifyRecordedEvents(log.events());
  const chained = verifyJsonlLog(log);
  if (!chained.ok && chained.problem) {
    const found = chained.problem;
    return {
      ok: false,
      calls: 0,
      responses: 0,
      unanswered: [],
      problem: { kind: 'chain', seq: found.seq, message: found.message },
    };
  }
  const store = createJsonlStore({ dir: dirname(log) });
  const session = await Session.open({
    store,
    id: basename(log).replace(/\.jsonl$/, ''),
    readOnly: true,
    eventTypes: AI_SDK_EVENT_TYPES,
  });
  try {
    return verifyRecordedEvents(session.events());
  } finally {
    await session.close();
  }
}
