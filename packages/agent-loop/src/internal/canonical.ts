import { hash as oneShotHash } from 'node:crypto';
import type { Message } from '@spine/protocol';
import { canonicalText } from './canonical-text.js';
import {
  copyParams,
  type RequestDigest,
  type RequestParams,
  sameParams,
  tailText,
} from './request-params.js';

// Recorded requests are hashed with a per-message SHA-256 chain (header `hashing: 'chain/1'`):
//   f_i = canonical JSON of message i (keys sorted, byte-equal to protocol's canonicalJson)
//   c_0 = sha256hex("spine/message-chain/1"),  c_i = sha256hex(c_{i-1} + "\n" + f_i)
//   messagesHash = "sha256:" + c_n,  requestHash = "sha256:" + sha256hex(c_n + "\n" + params)
// where params is the canonical JSON of the request's parameters. A chain value depends only
// on the messages up to it, so anyone can verify one request alone, a step hashes only its new
// messages (one one-shot hash each, plus one for the request), and the first chain value that
// differs from the recorded ones names the first differing message.

/** The `hashing` value of headers written with this scheme. */
export const CHAIN_SCHEME = 'chain/1';

/** c_0, the chain value of an empty message list. */
export const CHAIN_SEED: string = oneShotHash('sha256', 'spine/message-chain/1', 'hex');

/** Hex digits of a chain value recorded per added message in `addedHashes`. */
export const SHORT_CHAIN_LENGTH = 16;

/** c_i from c_{i-1} and message i. */
export function chainNext(previous: string, message: Message): string {
  return oneShotHash('sha256', `${previous}\n${canonicalText(message)}`, 'hex');
}

/** The request hash of a request whose messages end the chain at `chain`. */
function requestHashOf(chain: string, paramsText: string): string {
  return `sha256:${oneShotHash('sha256', `${chain}\n${paramsText}`, 'hex')}`;
}

/** Every chain value c_1…c_n of `messages`, from scratch. */
export function chainOf(messages: readonly Message[]): string[] {
  const chain: string[] = [];
  let value = CHAIN_SEED;
  for (let i = 0; i < messages.length; i++) {
    value = chainNext(value, messages[i] as Message);
    chain.push(value);
  }
  return chain;
}

/** Hashes a request from scratch (the reference in tests, and for third-party checks). */
export function digestRequest(messages: readonly Message[], params: RequestParams): RequestDigest {
  const chain = chainOf(messages);
  const last = chain.length > 0 ? (chain[chain.length - 1] as string) : CHAIN_SEED;
  return { messagesHash: `sha256:${last}`, requestHash: requestHashOf(last, tailText(params)) };
}

/**
 * The message chain over successive requests. `update` compares the new list with the last one
 * by identity (cheap) and hashes only the messages after the unchanged prefix: appended ones,
 * or, when an earlier message changed (compaction), those from the first changed index on; the
 * chain values of the kept prefix stay valid. It holds one chain value per message and the
 * messages themselves (for the identity check), never their text.
 */
export class IncrementalRequestHash {
  #known: Message[] = [];
  #chain: string[] = [];
  #generation: number | undefined;
  #lastParams: RequestParams | undefined;
  #lastTail = '';
  #lastChain = '';
  #lastRequestHash = '';

  /** How many messages the chain covers. */
  get length(): number {
    return this.#chain.length;
  }

  /**
   * Feeds `messages` and returns how many leading messages were unchanged since the last call.
   * `generation` (the surface generation of a session-log derived list) enables a fast path.
   */
  update(messages: readonly Message[], generation?: number): number {
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
    const chain = this.#chain;
    if (kept < known.length) {
      known.length = kept;
      chain.length = kept;
    }
    let value = kept > 0 ? (chain[kept - 1] as string) : CHAIN_SEED;
    for (let i = kept; i < messages.length; i++) {
      const message = messages[i] as Message;
      value = chainNext(value, message);
      chain.push(value);
      known.push(message);
    }
    return kept;
  }

  /** The chain values and the surface generation they hold, for a session snapshot. */
  capture(): { generation: number | null; chain: string[] } {
    return { generation: this.#generation ?? null, chain: this.#chain.slice() };
  }

  /**
   * Takes chain values saved by {@link IncrementalRequestHash.capture} for the first
   * `chain.length` of `messages` (the message objects `update` will be fed), so that a reopened
   * session hashes only the messages added since. Refused (returns false, nothing changes)
   * unless the surface generation is the saved one and the last saved value is that of its
   * message recomputed: a snapshot of another projection or log is never trusted.
   */
  restore(messages: readonly Message[], generation: number, saved: unknown): boolean {
    const state = saved as { generation?: unknown; chain?: unknown } | undefined;
    const chain = state?.chain;
    if (this.#chain.length > 0 || state?.generation !== generation || !Array.isArray(chain)) {
      return false;
    }
    const count = chain.length;
    if (count === 0 || count > messages.length) return false;
    if (!chain.every((value) => typeof value === 'string' && /^[0-9a-f]{64}$/.test(value))) {
      return false;
    }
    const before = count > 1 ? (chain[count - 2] as string) : CHAIN_SEED;
    if (chainNext(before, messages[count - 1] as Message) !== chain[count - 1]) return false;
    this.#known = messages.slice(0, count);
    this.#chain = chain.slice() as string[];
    this.#generation = generation;
    return true;
  }

  /** The chain value after message `index` (c_{index+1}), 64 hex digits. */
  chainValue(index: number): string {
    const value = this.#chain[index];
    if (value === undefined) throw new RangeError(`no chain value for message ${index}`);
    return value;
  }

  /** The hashes of the request made of the fed messages and `params`. */
  digest(params: RequestParams): RequestDigest {
    const chain = this.#chain;
    const last = chain.length > 0 ? (chain[chain.length - 1] as string) : CHAIN_SEED;
    // Parameters rarely change between steps: their canonical text is reused while they don't,
    // and a retry of the same request reuses its hash.
    if (!this.#lastParams || !sameParams(this.#lastParams, params)) {
      this.#lastTail = tailText(params);
      this.#lastParams = copyParams(params);
      this.#lastChain = '';
    }
    if (last !== this.#lastChain) {
      this.#lastRequestHash = requestHashOf(last, this.#lastTail);
      this.#lastChain = last;
    }
    return { messagesHash: `sha256:${last}`, requestHash: this.#lastRequestHash };
  }
}

export type { RequestDigest, RequestParams } from './request-params.js';
