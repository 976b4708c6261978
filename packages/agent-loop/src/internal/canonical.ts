import { createHash, type Hash, hash as oneShotHash } from 'node:crypto';
import { canonicalJson, type Message, type ModelRequest } from '@spine/protocol';
import { canonicalText } from './canonical-text.js';

// The canonical request is the JSON text `{"messages":[m1,m2,…],"params":{…}}` with every
// object's keys sorted. Messages come first so a running hash over them can be copied and
// finished with the params at each step: old messages are never serialised or hashed again.

const MESSAGES_OPEN = '{"messages":[';

/**
 * The canonical JSON of one message. Not cached: the running hash serialises each message
 * once, when it first appears, so a cache would only double the heap held for history.
 */
export function fragmentOf(message: Message): string {
  return canonicalText(message);
}

/** A short hash of one message's canonical fragment, recorded for messages new to a request. */
export function fragmentHash(message: Message, fragment = fragmentOf(message)): string {
  return oneShotHash('sha256', fragment, 'hex').slice(0, 16);
}

/** The parameters of a request besides its messages; their canonical JSON ends the request. */
export interface RequestParams {
  model: string;
  provider: string;
  systemHash: string;
  toolsHash: string;
  sessionId?: string;
  maxOutputTokens?: number;
  reasoning?: ModelRequest['reasoning'];
}

/** Hashes of one request: the whole canonical request, and the messages part alone. */
export interface RequestDigest {
  requestHash: string;
  messagesHash: string;
}

/** The text that closes a canonical request after its messages. */
function paramsTail(params: RequestParams): string {
  return `],"params":${canonicalJson(params)}}`;
}

function finish(hash: Hash, tail: string): RequestDigest {
  const messagesHash = `sha256:${hash.copy().digest('hex')}`;
  const requestHash = `sha256:${hash.copy().update(tail).digest('hex')}`;
  return { requestHash, messagesHash };
}

/** True when two parameter sets have the same canonical form. */
function sameParams(a: RequestParams, b: RequestParams): boolean {
  const x = a.reasoning;
  const y = b.reasoning;
  return (
    (x === undefined
      ? y === undefined
      : y !== undefined && canonicalJson(x) === canonicalJson(y)) &&
    a.model === b.model &&
    a.provider === b.provider &&
    a.systemHash === b.systemHash &&
    a.toolsHash === b.toolsHash &&
    a.sessionId === b.sessionId &&
    a.maxOutputTokens === b.maxOutputTokens
  );
}

/** Hashes a request from scratch (used by replay, and as the reference in tests). */
export function digestRequest(messages: readonly Message[], params: RequestParams): RequestDigest {
  const hash = createHash('sha256').update(MESSAGES_OPEN);
  for (let i = 0; i < messages.length; i++) {
    if (i > 0) hash.update(',');
    hash.update(fragmentOf(messages[i] as Message));
  }
  return finish(hash, paramsTail(params));
}

/**
 * A running hash over the messages of successive requests. `update` compares the new list
 * with the last one by identity (cheap) and hashes only the appended messages; a changed
 * earlier message (compaction) restarts from scratch.
 */
export class IncrementalRequestHash {
  #hash: Hash = createHash('sha256').update(MESSAGES_OPEN);
  #known: Message[] = [];
  #generation: number | undefined;
  #lastParams: RequestParams | undefined;
  #lastTail = '';

  /**
   * Feeds `messages`; returns how many leading messages were unchanged since the last call,
   * and the short hash of each message fed now.
   */
  update(
    messages: readonly Message[],
    generation?: number,
  ): { kept: number; fed: number; hashes: string[] } {
    const known = this.#known;
    const limit = Math.min(known.length, messages.length);
    let kept = 0;
    // Fast path: session-log grows its derived arrays in place until a replace, so when the
    // last known message is still in place the whole prefix is (checked fully otherwise).
    const sameGeneration = generation !== undefined && generation === this.#generation;
    this.#generation = generation;
    if (
      sameGeneration &&
      limit === known.length &&
      (limit === 0 || known[limit - 1] === messages[limit - 1])
    ) {
      kept = limit;
    }
    if (kept === 0) while (kept < limit && known[kept] === messages[kept]) kept++;
    if (kept < known.length) {
      this.#hash = createHash('sha256').update(MESSAGES_OPEN);
      this.#known = [];
    }
    const target = this.#known;
    const fed = target.length;
    const hashes: string[] = [];
    // The new fragments go into the running hash in one call (one native crossing per step).
    let text = '';
    for (let i = fed; i < messages.length; i++) {
      const message = messages[i] as Message;
      const fragment = fragmentOf(message);
      text += i > 0 ? `,${fragment}` : fragment;
      hashes.push(fragmentHash(message, fragment));
      target.push(message);
    }
    if (text !== '') this.#hash.update(text);
    return { kept, fed, hashes };
  }

  /** Finishes a copy of the running hash with `params`. */
  digest(params: RequestParams): RequestDigest {
    // Parameters rarely change between steps: their canonical text is reused while they don't.
    if (!this.#lastParams || !sameParams(this.#lastParams, params)) {
      this.#lastTail = paramsTail(params);
      this.#lastParams = params.reasoning
        ? { ...params, reasoning: { ...params.reasoning } }
        : { ...params };
    }
    return finish(this.#hash, this.#lastTail);
  }
}
