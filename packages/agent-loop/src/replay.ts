import { createHash } from 'node:crypto';
import type {
  Message,
  ModelClient,
  ModelRequest,
  Projector,
  PromptSystemBody,
  RequestHeaderBody,
  SessionLog,
  ToolSpec,
  ToolsDefinedBody,
} from '@spine/protocol';
import { createDefaultProjector, SurfaceState } from '@spine/session-log';
import { CHAIN_SCHEME, IncrementalRequestHash } from './internal/canonical.js';
import { LegacyIncrementalRequestHash } from './internal/canonical-legacy.js';
import { sha256 } from './internal/hash.js';
import {
  checkChain,
  checkLegacy,
  type RebuiltRequest,
  RecordedChain,
} from './internal/replay-check.js';
import { paramsOfHeader } from './internal/request-params.js';
import { resolveSeqs } from './internal/resolve-seqs.js';
import { assertWholeHistory } from './projections.js';
import { hashTools } from './request-builder.js';

/** Options of {@link replay}. */
export interface ReplayOptions {
  /** Encodes each rebuilt request to its exact wire body (reported as `wireBytes`, `wireHash`). */
  model?: ModelClient;
  /** Projects surface events to messages; default: session-log's default projector. */
  projector?: Projector;
  /**
   * Receives each rebuilt request with its verdict, in log order: when `verdict.ok`, exactly
   * what the model was sent (provider-neutral; `model.encodeRequest` gives its wire body).
   * Requests whose system prompt or tool list is missing are not rebuilt and not passed.
   */
  onRequest?: (request: ModelRequest, verdict: ReplayedRequest) => void;
}

/** The first field of a recorded request that the log no longer reproduces. */
export interface ReplayMismatch {
  /** `system`, `tools`, `seqs`, `hashing`, `messages[i]`, `messages`, `addedHashes[i]`, `params`. */
  field: string;
  /** The seq of the event behind the differing message, when known. */
  eventSeq?: number;
  /** What the header recorded. */
  expected?: string;
  /** What the log yields now. */
  actual?: string;
}

/** The verdict on one recorded request. */
export interface ReplayedRequest {
  /** Seq of its `request/header`. */
  seq: number;
  /** The request's turn. */
  turn: number;
  /** The request's step. */
  step: number;
  /** The request's attempt. */
  attempt: number;
  /** True when the rebuilt request hashes to the recorded hash. */
  ok: boolean;
  /** The first differing field, when not ok. */
  mismatch?: ReplayMismatch;
  /** Size of the wire body, when `options.model` can encode. */
  wireBytes?: number;
  /** `sha256:<hex>` of the wire body, when `options.model` can encode. */
  wireHash?: string;
}

/** What {@link replay} found. */
export interface ReplayReport {
  /** True when every recorded request was rebuilt with a matching hash. */
  ok: boolean;
  /** One verdict per `request/header`, in log order. */
  requests: ReplayedRequest[];
  /** The first request that did not match, if any. */
  firstMismatch?: ReplayedRequest;
}

/**
 * Rebuilds every recorded model request from the log alone (surface ops, projections, stored
 * system prompts and tool lists) and checks each against its recorded hash. A mismatch names
 * the request and the first differing field, down to the message and its event seq.
 *
 * @example
 * ```ts
 * const report = replay(session);
 * if (!report.ok) console.error(report.firstMismatch);
 * ```
 * @throws {PartialHistoryError} for a lazily opened session (it needs every event; open the
 * log with `history: 'full'` to replay it).
 */
export function replay(session: SessionLog, options: ReplayOptions = {}): ReplayReport {
  assertWholeHistory(session, 'replay');
  const projector = options.projector ?? createDefaultProjector();
  const systems = new Map<string, string>();
  const toolLists = new Map<string, ToolSpec[]>();
  const projected = new Map<number, readonly Message[]>();
  // Replay's own message chain over the messages it projected itself (cached per seq, so the
  // prefix is recognised by identity): independent of the recorder, linear in the log. Headers
  // written before the chain (no `hashing`) are checked with the legacy running hash.
  const hasher = new IncrementalRequestHash();
  let legacyHasher: LegacyIncrementalRequestHash | undefined;
  const recordedChain = new RecordedChain();
  const resolved = new Map<number, number[]>();
  // The surface as the session applies its ops (one implementation, in session-log).
  const surface = new SurfaceState();
  const requests: ReplayedRequest[] = [];

  for (const event of session.events()) {
    if (event.surfaceOp) {
      surface.apply(event, event.surfaceOp);
      continue;
    }
    if (event.type === 'prompt/system') {
      const body = event.body as PromptSystemBody;
      systems.set(body.hash, body.text);
      continue;
    }
    if (event.type === 'tools/defined') {
      const body = event.body as ToolsDefinedBody;
      toolLists.set(body.hash, body.tools);
      continue;
    }
    if (event.type !== 'request/header') continue;
    const header = event.body as RequestHeaderBody;
    const entry: ReplayedRequest = {
      seq: event.seq,
      turn: header.turn,
      step: header.step,
      attempt: header.attempt,
      ok: true,
    };
    requests.push(entry);
    const fail = (mismatch: ReplayMismatch): void => {
      entry.ok = false;
      entry.mismatch = mismatch;
    };
    const chained = header.hashing === CHAIN_SCHEME;
    recordedChain.advance(header, event.seq);
    if (header.hashing !== undefined && !chained) {
      fail({ field: 'hashing', expected: CHAIN_SCHEME, actual: String(header.hashing) });
      continue;
    }
    const recordedSeqs = resolveSeqs(session, event.seq, resolved);
    resolved.clear();
    resolved.set(event.seq, recordedSeqs);

    const system = systems.get(header.systemHash);
    const tools = toolLists.get(header.toolsHash);
    if (system === undefined || sha256(system) !== header.systemHash) {
      const actual = system === undefined ? 'missing' : sha256(system);
      fail({ field: 'system', expected: header.systemHash, actual });
      continue;
    }
    if (tools === undefined || hashTools(tools) !== header.toolsHash) {
      const actual = tools === undefined ? 'missing' : hashTools(tools);
      fail({ field: 'tools', expected: header.toolsHash, actual });
      continue;
    }
    const messages: Message[] = [];
    const messageSeqs: number[] = [];
    try {
      for (const seq of surface.seqs) {
        let list = projected.get(seq);
        if (!list) {
          const source = session.get(seq);
          list = source ? projector.project(source) : [];
          projected.set(seq, list);
        }
        for (const message of list) {
          messages.push(message);
          messageSeqs.push(seq);
        }
      }
    } catch (error) {
      fail({ field: 'messages', actual: error instanceof Error ? error.message : String(error) });
      continue;
    }
    const seqDiff = firstDifference(recordedSeqs, messageSeqs);
    if (seqDiff !== undefined) {
      const expected = String(recordedSeqs[seqDiff] ?? 'end');
      fail({ field: 'seqs', expected, actual: String(messageSeqs[seqDiff] ?? 'end') });
      continue;
    }
    const params = paramsOfHeader(header);
    const recorded = recordedChain.values;
    const rebuilt: RebuiltRequest = { messages, messageSeqs, params, header, recorded };
    if (!chained && !legacyHasher) legacyHasher = new LegacyIncrementalRequestHash();
    const mismatch = chained
      ? checkChain(hasher, rebuilt)
      : checkLegacy(legacyHasher as LegacyIncrementalRequestHash, rebuilt);
    if (mismatch) fail(mismatch);
    if (!options.onRequest && (mismatch || !options.model?.encodeRequest)) continue;
    const request: ModelRequest = { model: header.model, system, messages, tools };
    if (header.sessionId !== undefined) request.sessionId = header.sessionId;
    if (header.maxOutputTokens !== undefined) request.maxOutputTokens = header.maxOutputTokens;
    if (header.reasoning !== undefined) request.reasoning = header.reasoning;
    if (!mismatch && options.model?.encodeRequest) {
      const wire = options.model.encodeRequest(request);
      entry.wireBytes = Buffer.byteLength(wire);
      entry.wireHash = `sha256:${createHash('sha256').update(wire).digest('hex')}`;
    }
    options.onRequest?.(request, entry);
  }
  const firstMismatch = requests.find((request) => !request.ok);
  return firstMismatch ? { ok: false, requests, firstMismatch } : { ok: true, requests };
}

function firstDifference(a: readonly number[], b: readonly number[]): number | undefined {
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return i;
  return undefined;
}
