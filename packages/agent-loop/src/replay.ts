import { createHash } from 'node:crypto';
import type {
  ImageBytes,
  Message,
  ModelClient,
  ModelRequest,
  Projector,
  PromptSystemBody,
  RecordedSeqs,
  RequestHeaderBody,
  SessionEvent,
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
import { fromRanges } from './internal/seq-ranges.js';
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
  /**
   * The session's blob store (default: the session's own `blobs`): each image a message
   * references is hashed, and a missing or altered blob is a mismatch naming its event.
   */
  blobs?: ImageBytes;
}

/** The first field of a recorded request that the log no longer reproduces. */
export interface ReplayMismatch {
  /**
   * `system`, `tools`, `seqs`, `hashing`, `messages[i]`, `messages`, `addedHashes[i]`, `params`,
   * or `images[i]` (image i of the event `eventSeq`: its blob is missing or altered).
   */
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
 * @throws a {@link PartialHistoryError} for a lazily opened session (it needs every event: use
 * {@link replayStream}, or open the log with `history: 'full'`).
 */
export function replay(session: SessionLog, options: ReplayOptions = {}): ReplayReport {
  assertWholeHistory(session, 'replay');
  const replayer = new Replayer(withBlobs(options, session), (seq) => session.get(seq));
  for (const event of session.events()) replayer.feed(event);
  return replayer.report();
}

/**
 * {@link replay} streaming the log (`session.readEvents`, when the session has it) instead of
 * reading what the session holds, so a lazily opened session replays in full; the report is the
 * same as `replay` gives on a fully read session.
 *
 * @example
 * ```ts
 * const lazy = await Session.open({ store, id, history: 'lazy', readOnly: true });
 * const report = await replayStream(lazy);
 * ```
 */
export async function replayStream(
  session: SessionLog & {
    readEvents?(range: { fromSeq: number }): AsyncIterable<SessionEvent>;
  },
  options: ReplayOptions = {},
): Promise<ReplayReport> {
  if (typeof session.readEvents !== 'function') return replay(session, options);
  // Streamed events are not held by the session: keep the surface events until replay has
  // projected them, and each header's recorded seqs (what resolving a later header may need).
  const surfaceEvents = new Map<number, SessionEvent>();
  const headers = new Map<number, SessionEvent>();
  const replayer = new Replayer(
    withBlobs(options, session),
    (seq) => surfaceEvents.get(seq) ?? headers.get(seq),
  );
  replayer.projectedOnce = (seq) => surfaceEvents.delete(seq);
  replayer.leftSurface = (seq) => surfaceEvents.delete(seq);
  for await (const event of session.readEvents({ fromSeq: 1 })) {
    if (event.surfaceOp) surfaceEvents.set(event.seq, event);
    else if (event.type === 'request/header') {
      const seqs = (event.body as RequestHeaderBody | undefined)?.seqs;
      // Only what resolving a later header's `base` reads (its type and recorded seqs).
      headers.set(event.seq, { seq: event.seq, type: event.type, at: event.at, body: { seqs } });
    }
    replayer.feed(event);
  }
  return replayer.report();
}

/** `options` with the session's blob store when the caller named none. */
function withBlobs(options: ReplayOptions, session: SessionLog): ReplayOptions {
  return options.blobs || !session.blobs ? options : { ...options, blobs: session.blobs };
}

/** Replay's state over the events fed to it, in seq order. */
class Replayer {
  readonly #options: ReplayOptions;
  readonly #get: (seq: number) => SessionEvent | undefined;
  readonly #projector: Projector;
  readonly #systems = new Map<string, string>();
  readonly #toolLists = new Map<string, ToolSpec[]>();
  readonly #projected = new Map<number, readonly Message[]>();
  // Replay's own message chain over the messages it projected itself (cached per seq, so the
  // prefix is recognised by identity): independent of the recorder, linear in the log. Headers
  // written before the chain (no `hashing`) are checked with the legacy running hash.
  readonly #hasher = new IncrementalRequestHash();
  #legacyHasher: LegacyIncrementalRequestHash | undefined;
  readonly #recordedChain = new RecordedChain();
  readonly #resolved = new Map<number, number[]>();
  // The surface as the session applies its ops (one implementation, in session-log).
  readonly #surface = new SurfaceState();
  readonly #requests: ReplayedRequest[] = [];
  /** Blobs already hashed and found intact. */
  readonly #intactBlobs = new Set<string>();
  /** Called once per surface event after it was projected (streaming drops it then). */
  projectedOnce: ((seq: number) => void) | undefined;
  /** Called for each seq a replace took off the surface (streaming drops it then). */
  leftSurface: ((seq: number) => void) | undefined;

  constructor(options: ReplayOptions, get: (seq: number) => SessionEvent | undefined) {
    this.#options = options;
    this.#get = get;
    this.#projector = options.projector ?? createDefaultProjector();
  }

  report(): ReplayReport {
    const requests = this.#requests;
    const firstMismatch = requests.find((request) => !request.ok);
    return firstMismatch ? { ok: false, requests, firstMismatch } : { ok: true, requests };
  }

  /**
   * The message seqs `header` (at `seq`) recorded. A header based on the previous one updates
   * that one's array in place: a new array per request, each living until the next, is what V8
   * learns to allocate in the old generation, where it piles up as garbage between full GCs
   * (peak memory growing with the log, not the surface).
   */
  #recordedSeqsOf(seq: number, header: RequestHeaderBody): number[] {
    const resolved = this.#resolved;
    const recorded = header.seqs as RecordedSeqs | undefined;
    const previous = recorded?.base === undefined ? undefined : resolved.get(recorded.base);
    const keep = recorded?.keep ?? 0;
    let seqs: number[];
    if (recorded && previous && Number.isSafeInteger(keep) && keep >= 0) {
      previous.length = Math.min(previous.length, keep);
      seqs = fromRanges(recorded.ranges, previous);
    } else seqs = resolveSeqs({ get: this.#get }, seq, resolved);
    resolved.clear();
    resolved.set(seq, seqs);
    return seqs;
  }

  feed(event: SessionEvent): void {
    const options = this.#options;
    const projector = this.#projector;
    const systems = this.#systems;
    const toolLists = this.#toolLists;
    const projected = this.#projected;
    const hasher = this.#hasher;
    const recordedChain = this.#recordedChain;
    const surface = this.#surface;
    const requests = this.#requests;
    if (event.surfaceOp) {
      const before = event.surfaceOp.op === 'replace' ? surface.seqs.slice() : undefined;
      surface.apply(event, event.surfaceOp);
      // A seq a replace took off the surface never returns: forget it (else memory grows with
      // the log, not the surface).
      if (before) {
        const on = new Set(surface.seqs);
        for (const seq of before) {
          if (on.has(seq)) continue;
          projected.delete(seq);
          this.leftSurface?.(seq);
        }
      }
      return;
    }
    if (event.type === 'prompt/system') {
      const body = event.body as PromptSystemBody;
      systems.set(body.hash, body.text);
      return;
    }
    if (event.type === 'tools/defined') {
      const body = event.body as ToolsDefinedBody;
      toolLists.set(body.hash, body.tools);
      return;
    }
    if (event.type !== 'request/header') return;
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
      return;
    }
    const recordedSeqs = this.#recordedSeqsOf(event.seq, header);

    const system = systems.get(header.systemHash);
    const tools = toolLists.get(header.toolsHash);
    if (system === undefined || sha256(system) !== header.systemHash) {
      const actual = system === undefined ? 'missing' : sha256(system);
      fail({ field: 'system', expected: header.systemHash, actual });
      return;
    }
    if (tools === undefined || hashTools(tools) !== header.toolsHash) {
      const actual = tools === undefined ? 'missing' : hashTools(tools);
      fail({ field: 'tools', expected: header.toolsHash, actual });
      return;
    }
    const messages: Message[] = [];
    const messageSeqs: number[] = [];
    try {
      for (const seq of surface.seqs) {
        let list = projected.get(seq);
        if (!list) {
          const source = this.#get(seq);
          list = source ? projector.project(source) : [];
          projected.set(seq, list);
          this.projectedOnce?.(seq);
        }
        const blobProblem = checkImageBlobs(options.blobs, this.#intactBlobs, seq, list);
        if (blobProblem) {
          projected.delete(seq);
          fail(blobProblem);
          return;
        }
        for (const message of list) {
          messages.push(message);
          messageSeqs.push(seq);
        }
      }
    } catch (error) {
      fail({ field: 'messages', actual: error instanceof Error ? error.message : String(error) });
      return;
    }
    const seqDiff = firstDifference(recordedSeqs, messageSeqs);
    if (seqDiff !== undefined) {
      const expected = String(recordedSeqs[seqDiff] ?? 'end');
      fail({ field: 'seqs', expected, actual: String(messageSeqs[seqDiff] ?? 'end') });
      return;
    }
    const params = paramsOfHeader(header);
    const recorded = recordedChain.values;
    const rebuilt: RebuiltRequest = { messages, messageSeqs, params, header, recorded };
    if (!chained && !this.#legacyHasher) this.#legacyHasher = new LegacyIncrementalRequestHash();
    const mismatch = chained
      ? checkChain(hasher, rebuilt)
      : checkLegacy(this.#legacyHasher as LegacyIncrementalRequestHash, rebuilt);
    if (mismatch) fail(mismatch);
    if (!options.onRequest && (mismatch || !options.model?.encodeRequest)) return;
    const request: ModelRequest = { model: header.model, system, messages, tools };
    if (options.blobs) request.images = options.blobs;
    if (header.sessionId !== undefined) request.sessionId = header.sessionId;
    if (header.maxOutputTokens !== undefined) request.maxOutputTokens = header.maxOutputTokens;
    if (header.reasoning !== undefined) request.reasoning = header.reasoning;
    // The recorded fallback, not the encoding client's configuration, decides the images.
    if (header.imageFallback !== undefined) request.imageFallback = header.imageFallback;
    if (!mismatch && options.model?.encodeRequest) {
      const wire = options.model.encodeRequest(request);
      entry.wireBytes = Buffer.byteLength(wire);
      entry.wireHash = `sha256:${createHash('sha256').update(wire).digest('hex')}`;
    }
    options.onRequest?.(request, entry);
  }
}

/** Hashes the blobs of `messages`' images (each once); the first missing or altered one. */
function checkImageBlobs(
  blobs: ImageBytes | undefined,
  intact: Set<string>,
  seq: number,
  messages: readonly Message[],
): ReplayMismatch | undefined {
  if (!blobs) return undefined;
  for (const message of messages) {
    if (message.role === 'assistant' || !message.images) continue;
    for (let i = 0; i < message.images.length; i++) {
      const expected = message.images[i]!.sha256;
      if (intact.has(expected)) continue;
      const bytes = blobs.get(expected);
      const actual = bytes === undefined ? 'missing' : sha256Hex(bytes);
      if (actual !== expected) return { field: `images[${i}]`, eventSeq: seq, expected, actual };
      intact.add(expected);
    }
  }
  return undefined;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function firstDifference(a: readonly number[], b: readonly number[]): number | undefined {
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return i;
  return undefined;
}
