import { createHash, type Hash, hash as oneShotHash } from 'node:crypto';
import type { Message } from '@spine/protocol';
import { canonicalText } from './canonical-text.js';
import { type RequestDigest, type RequestParams, tailText } from './request-params.js';

// The legacy request hashing, kept to verify headers recorded before the message chain
// (headers without `hashing`). The canonical request is the JSON text
// `{"messages":[m1,m2,…],"params":{…}}` with every object's keys sorted; `messagesHash` is the
// SHA-256 of the text up to the last message, `requestHash` of the whole text, and each
// `addedHashes` entry the first 16 hex digits of the SHA-256 of one message's canonical JSON.
// Replay is its only user: new headers are written with the chain (see canonical.ts).

const MESSAGES_OPEN = '{"messages":[';

/** The legacy short hash of one message: SHA-256 of its canonical JSON, 16 hex digits. */
export function legacyMessageHash(message: Message): string {
  return oneShotHash('sha256', canonicalText(message), 'hex').slice(0, 16);
}

function finish(hash: Hash, params: RequestParams): RequestDigest {
  const messagesHash = `sha256:${hash.copy().digest('hex')}`;
  const requestHash = `sha256:${hash
    .copy()
    .update(`],"params":${tailText(params)}}`)
    .digest('hex')}`;
  return { requestHash, messagesHash };
}

/** Hashes a request from scratch with the legacy scheme (the reference in tests). */
export function legacyDigestRequest(
  messages: readonly Message[],
  params: RequestParams,
): RequestDigest {
  const hash = createHash('sha256').update(MESSAGES_OPEN);
  for (let i = 0; i < messages.length; i++) {
    if (i > 0) hash.update(',');
    hash.update(canonicalText(messages[i]));
  }
  return finish(hash, params);
}

/**
 * The legacy running hash over the messages of successive requests, for replaying long legacy
 * sessions in linear time: `update` keeps the messages it saw while the new list starts with
 * them (compared by identity) and hashes only the appended ones; otherwise it starts over.
 */
export class LegacyIncrementalRequestHash {
  #hash: Hash = createHash('sha256').update(MESSAGES_OPEN);
  #known: Message[] = [];

  /** Feeds `messages`; returns how many leading messages were unchanged since the last call. */
  update(messages: readonly Message[]): number {
    const known = this.#known;
    const limit = Math.min(known.length, messages.length);
    let kept = 0;
    while (kept < limit && known[kept] === messages[kept]) kept++;
    if (kept < known.length) {
      this.#hash = createHash('sha256').update(MESSAGES_OPEN);
      this.#known = [];
    }
    const target = this.#known;
    for (let i = target.length; i < messages.length; i++) {
      const message = messages[i] as Message;
      if (i > 0) this.#hash.update(',');
      this.#hash.update(canonicalText(message));
      target.push(message);
    }
    return kept;
  }

  /** Finishes a copy of the running hash with `params`. */
  digest(params: RequestParams): RequestDigest {
    return finish(this.#hash, params);
  }
}
