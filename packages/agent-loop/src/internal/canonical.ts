import { createHash, type Hash } from 'node:crypto';
import { canonicalJson, type Message, type ModelRequest } from '@spine/protocol';

// The canonical request is the JSON text `{"messages":[m1,m2,…],"params":{…}}` with every
// object's keys sorted. Messages come first so a running hash over them can be copied and
// finished with the params at each step: old messages are never serialised or hashed again.

const fragments = new WeakMap<object, string>();
const MESSAGES_OPEN = '{"messages":[';

/** The canonical JSON of one message, cached by object identity. */
export function fragmentOf(message: Message): string {
  let fragment = fragments.get(message);
  if (fragment === undefined) {
    fragment = canonicalJson(message);
    fragments.set(message, fragment);
  }
  return fragment;
}

/** A short hash of one message's canonical fragment, recorded for messages new to a request. */
export function fragmentHash(message: Message): string {
  return createHash('sha256').update(fragmentOf(message)).digest('hex').slice(0, 16);
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

function finish(hash: Hash, params: RequestParams): RequestDigest {
  const messagesHash = `sha256:${hash.copy().digest('hex')}`;
  const requestHash = `sha256:${hash
    .copy()
    .update(`],"params":${canonicalJson(params)}}`)
    .digest('hex')}`;
  return { requestHash, messagesHash };
}

/** Hashes a request from scratch (used by replay, and as the reference in tests). */
export function digestRequest(messages: readonly Message[], params: RequestParams): RequestDigest {
  const hash = createHash('sha256').update(MESSAGES_OPEN);
  for (let i = 0; i < messages.length; i++) {
    if (i > 0) hash.update(',');
    hash.update(fragmentOf(messages[i] as Message));
  }
  return finish(hash, params);
}

/**
 * A running hash over the messages of successive requests. `update` compares the new list
 * with the last one by identity (cheap) and hashes only the appended messages; a changed
 * earlier message (compaction) restarts from scratch.
 */
export class IncrementalRequestHash {
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
      this.#hash.update(fragmentOf(message));
      target.push(message);
    }
    return kept;
  }

  /** Finishes a copy of the running hash with `params`. */
  digest(params: RequestParams): RequestDigest {
    return finish(this.#hash, params);
  }
}
