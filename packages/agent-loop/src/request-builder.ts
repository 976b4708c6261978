import type {
  PrefixChangeCause,
  PrefixComparison,
  PromptSystemBody,
  RecordedSeqs,
  RequestContextBody,
  RequestHeaderBody,
  ToolsDefinedBody,
} from '@spine/protocol';
import {
  canonicalJson,
  type Message,
  type ModelRequest,
  type SessionLog,
  type ToolSpec,
} from '@spine/protocol';
import {
  CHAIN_SCHEME,
  IncrementalRequestHash,
  type RequestParams,
  SHORT_CHAIN_LENGTH,
} from './internal/canonical.js';
import { sha256 } from './internal/hash.js';
import { resolveSeqs } from './internal/resolve-seqs.js';
import { toRanges } from './internal/seq-ranges.js';
import { foldedState, requestRecordFold } from './projections.js';
import { RUNTIME_CONTEXT_SOURCE } from './runtime-context.js';
import type { PromptSnapshot } from './system-prompt.js';

/** The snapshot attachment holding the request-hash chain state. */
const REQUEST_HASH_ATTACHMENT = 'agent-loop/request-hash';

/** Input of {@link RequestBuilder.buildRequest}. */
export interface BuildRequestInput {
  /** This step's prompt snapshot (system text, contexts, tools). */
  snapshot: PromptSnapshot;
  /** The model id sent to the provider. */
  modelId: string;
  /** The provider name, recorded in the header. */
  provider: string;
  /** The turn being run. */
  turn: number;
  /** The step within the turn. */
  step: number;
  /** The attempt within the step, from 1. */
  attempt: number;
  /** The output token cap to send. */
  maxOutputTokens?: number;
  /** Reasoning control to send. */
  reasoning?: ModelRequest['reasoning'];
  /** The token meter's estimate, recorded for calibration. */
  estimatedTokens?: number;
  /** The client's fallback for images (`ModelClient.imageFallback`), recorded and hashed. */
  imageFallback?: ModelRequest['imageFallback'];
}

/** A request ready to stream, and where it was recorded. */
export interface BuiltRequest {
  /** The provider-neutral request to stream. */
  request: ModelRequest;
  /** Seq of its `request/header`. */
  headerSeq: number;
  /** The recorded header. */
  header: RequestHeaderBody;
}

/** The last recorded request: its header's seq and body. */
export interface RecordedRequest {
  /** Seq of the `request/header`. */
  seq: number;
  /** Its body. */
  body: RequestHeaderBody;
}

interface PreviousRequest {
  seq: number;
  body: RequestHeaderBody;
  seqs: number[];
}

const toolFragments = new WeakMap<ToolSpec, string>();

/**
 * Builds every model request from `session.deriveMessages()` and records it: `prompt/system`
 * and `tools/defined` once per content hash, then `request/header` (ids, hashes, message seqs,
 * prefix attribution) and `request/context`. Per step it costs in proportion to what is new:
 * messages are compared by identity, only new ones enter the per-message hash chain
 * (`hashing: 'chain/1'`), and their seqs are recorded relative to the previous request.
 *
 * @example
 * ```ts
 * const builder = new RequestBuilder(session);
 * const { request, headerSeq } = builder.buildRequest({ snapshot, modelId: 'deepseek-v4-flash', provider: 'deepseek', turn: 1, step: 1, attempt: 1 });
 * ```
 */
export class RequestBuilder {
  readonly #session: SessionLog;
  readonly #storedSystems = new Set<string>();
  readonly #storedTools = new Set<string>();
  readonly #hash = new IncrementalRequestHash();
  #previous: PreviousRequest | undefined;
  #lastTools: readonly ToolSpec[] | undefined;
  #lastToolsText = '';
  #lastToolsHash = '';

  /**
   * Reads the stored prompt and tool hashes and the last request from `session` (its
   * `agent-loop/requests` projection when registered).
   *
   * @throws a {@link PartialHistoryError} for a lazily opened session without the projection.
   */
  constructor(session: SessionLog) {
    this.#session = session;
    const record = foldedState(session, requestRecordFold);
    for (const hash of record.systems) this.#storedSystems.add(hash);
    for (const hash of record.tools) this.#storedTools.add(hash);
    // Resume is O(new): the chain values of the messages already hashed live in the session's
    // snapshots, so the first request after reopening hashes only the messages added since.
    session.attachToSnapshots?.(REQUEST_HASH_ATTACHMENT, () => this.#hash.capture());
    const saved = session.snapshotAttachment?.(REQUEST_HASH_ATTACHMENT)?.value;
    const last = record.last;
    if (last) {
      // The projection resolves each header's seqs as it is appended; a header whose base was
      // not the previous one (not written by this builder) is resolved through the log.
      this.#previous = {
        seq: last.seq,
        body: last.body,
        seqs: record.seqs ? record.seqs.slice() : resolveSeqs(session, last.seq),
      };
    }
    if (saved) {
      const derived = session.deriveMessages();
      this.#hash.restore(derived.messages, derived.generation, saved);
    }
  }

  /** The last recorded request header, if any. */
  get previous(): RecordedRequest | undefined {
    return this.#previous && { seq: this.#previous.seq, body: this.#previous.body };
  }

  /** Builds the next request from the session and records it; see the class summary. */
  buildRequest(input: BuildRequestInput, options: { signal?: AbortSignal } = {}): BuiltRequest {
    options.signal?.throwIfAborted();
    const session = this.#session;
    const at = { turn: input.turn, step: input.step };
    const { snapshot } = input;
    const tools = snapshot.tools;
    const toolsHash = this.#toolsHash(tools);
    if (!this.#storedSystems.has(snapshot.systemHash)) {
      const body: PromptSystemBody = { hash: snapshot.systemHash, text: snapshot.system };
      session.append('prompt/system', body, at);
      this.#storedSystems.add(snapshot.systemHash);
    }
    if (!this.#storedTools.has(toolsHash)) {
      const body: ToolsDefinedBody = { hash: toolsHash, tools: tools.map((tool) => ({ ...tool })) };
      session.append('tools/defined', body, at);
      this.#storedTools.add(toolsHash);
    }

    const derived = session.deriveMessages();
    const messages = derived.messages;
    const seqs = derived.seqs;
    const hasher = this.#hash;
    hasher.update(messages, derived.generation);
    const params: RequestParams = {
      model: input.modelId,
      provider: input.provider,
      systemHash: snapshot.systemHash,
      toolsHash,
    };
    if (session.id) params.sessionId = session.id;
    if (input.maxOutputTokens !== undefined) params.maxOutputTokens = input.maxOutputTokens;
    if (input.reasoning !== undefined) params.reasoning = input.reasoning;
    if (input.imageFallback !== undefined) params.imageFallback = input.imageFallback;
    const digest = hasher.digest(params);

    const previous = this.#previous;
    const previousSeqs = previous?.seqs ?? [];
    const limit = Math.min(previousSeqs.length, seqs.length);
    let kept = 0;
    // Within one surface generation the surface only grows, so the previous seqs are a prefix
    // when the last of them is still in place; otherwise compare them all.
    if (
      previous?.body.generation === derived.generation &&
      limit === previousSeqs.length &&
      (limit === 0 || previousSeqs[limit - 1] === seqs[limit - 1])
    ) {
      kept = limit;
    }
    if (kept === 0) while (kept < limit && previousSeqs[kept] === seqs[kept]) kept++;
    const causes: PrefixChangeCause[] = [];
    if (previous) {
      const before = previous.body;
      if (before.systemHash !== snapshot.systemHash) causes.push('system-changed');
      if (before.toolsHash !== toolsHash) causes.push('tools-changed');
      if (before.model !== input.modelId) causes.push('model-changed');
      if (kept < previousSeqs.length) {
        causes.push(
          before.generation !== derived.generation
            ? 'compaction-replaced-region'
            : 'earlier-message-changed',
        );
      }
    }
    // Each added message's chain value, shortened: the kept prefix's are in earlier headers.
    const addedHashes: string[] = [];
    for (let i = kept; i < messages.length; i++) {
      const message = messages[i] as Message;
      addedHashes.push(hasher.chainValue(i).slice(0, SHORT_CHAIN_LENGTH));
      if (message.role === 'user' && message.source === RUNTIME_CONTEXT_SOURCE && previous) {
        if (!causes.includes('runtime-context-inserted')) causes.push('runtime-context-inserted');
      }
    }
    let breaking = false;
    for (const cause of causes) if (cause !== 'runtime-context-inserted') breaking = true;
    // Built without spreads: an object literal with a conditional spread takes V8's slow
    // cloning path, which costs more than everything else here on a cold step.
    const recordedSeqs: RecordedSeqs = previous
      ? { base: previous.seq, keep: kept, ranges: toRanges(seqs, kept) }
      : { ranges: toRanges(seqs, 0) };
    const prefix: PrefixComparison = previous
      ? { previous: previous.seq, kept, of: previousSeqs.length, extends: !breaking, causes }
      : { kept, of: previousSeqs.length, extends: !breaking, causes };
    const header: RequestHeaderBody = {
      turn: input.turn,
      step: input.step,
      attempt: input.attempt,
      model: input.modelId,
      provider: input.provider,
      systemHash: snapshot.systemHash,
      toolsHash,
      generation: derived.generation,
      messageCount: messages.length,
      seqs: recordedSeqs,
      addedHashes,
      messagesHash: digest.messagesHash,
      requestHash: digest.requestHash,
      hashing: CHAIN_SCHEME,
      prefix,
    };
    if (params.sessionId !== undefined) header.sessionId = params.sessionId;
    if (input.maxOutputTokens !== undefined) header.maxOutputTokens = input.maxOutputTokens;
    if (input.reasoning !== undefined) header.reasoning = input.reasoning;
    if (input.imageFallback !== undefined) header.imageFallback = input.imageFallback;
    if (input.estimatedTokens !== undefined) header.estimatedTokens = input.estimatedTokens;
    // The log's chain head anchors it in the request record (not in the request or its hash):
    // the last line written; waiting for this step's lines would put their encoding here.
    const chain = session.chainHead?.();
    if (chain !== undefined) header.chain = { seq: chain.seq, h: chain.h };
    const event = session.append('request/header', header, at);

    const context: RequestContextBody = {
      request: event.seq,
      // SystemPrompt snapshots are frozen: those are recorded as they are, others copied.
      contexts: Object.isFrozen(snapshot.contexts) ? snapshot.contexts : { ...snapshot.contexts },
      variables: Object.isFrozen(snapshot.variables)
        ? snapshot.variables
        : { ...snapshot.variables },
    };
    session.append('request/context', context, at);

    const nextSeqs = previousSeqs;
    nextSeqs.length = kept;
    for (let i = kept; i < seqs.length; i++) nextSeqs.push(seqs[i] as number);
    this.#previous = { seq: event.seq, body: header, seqs: nextSeqs };

    const request: ModelRequest = {
      model: input.modelId,
      system: snapshot.system,
      messages,
      tools,
    };
    if (params.sessionId !== undefined) request.sessionId = params.sessionId;
    if (input.maxOutputTokens !== undefined) request.maxOutputTokens = input.maxOutputTokens;
    if (input.reasoning !== undefined) request.reasoning = input.reasoning;
    if (input.imageFallback !== undefined) request.imageFallback = input.imageFallback;
    // Image bytes are read from the session's blob store when the request is encoded.
    const blobs = session.blobs;
    if (blobs) request.images = blobs;
    return { request, headerSeq: event.seq, header };
  }

  #toolsHash(tools: readonly ToolSpec[]): string {
    if (tools === this.#lastTools) return this.#lastToolsHash;
    const text = `[${tools.map(toolFragment).join(',')}]`;
    this.#lastTools = tools;
    if (text !== this.#lastToolsText) {
      this.#lastToolsText = text;
      this.#lastToolsHash = sha256(text);
    }
    return this.#lastToolsHash;
  }
}

/** The canonical JSON of a tool spec, cached by identity. */
function toolFragment(tool: ToolSpec): string {
  let fragment = toolFragments.get(tool);
  if (fragment === undefined) {
    fragment = canonicalJson(tool);
    toolFragments.set(tool, fragment);
  }
  return fragment;
}

/** Hash of a tool list as recorded in `tools/defined` (canonical JSON array). */
export function hashTools(tools: readonly ToolSpec[]): string {
  return sha256(`[${tools.map((tool) => canonicalJson(tool)).join(',')}]`);
}
