import type { Message, RequestHeaderBody } from '@spine/protocol';
import type { ReplayMismatch } from '../replay.js';
import {
  CHAIN_SCHEME,
  type IncrementalRequestHash,
  type RequestDigest,
  type RequestParams,
  SHORT_CHAIN_LENGTH,
} from './canonical.js';
import { type LegacyIncrementalRequestHash, legacyMessageHash } from './canonical-legacy.js';

// How replay checks one rebuilt request against its header, for both hashing schemes: the
// message chain (`hashing: 'chain/1'`) and the legacy running hash (headers without `hashing`).
// With the chain, a mismatch names the first message whose chain value differs from the one
// the headers recorded; the legacy scheme can only compare the messages a header added.

/**
 * The short chain values the headers recorded for each message of the last request, updated in
 * place per header (replay stays linear in the log). A header records the values of its added
 * messages; those of its kept prefix are the previous request's, when that is the one before it.
 * A value is undefined where unknown (legacy headers record per-message hashes instead).
 */
export class RecordedChain {
  #seq: number | undefined;
  /** One entry per message of the last request. */
  readonly values: Array<string | undefined> = [];

  /** Moves to the request whose header is `header`, at `seq`. */
  advance(header: RequestHeaderBody, seq: number): void {
    const values = this.values;
    const kept = header.prefix?.kept ?? 0;
    if (this.#seq === undefined || this.#seq !== header.prefix?.previous) values.length = 0;
    if (values.length > kept) values.length = kept;
    while (values.length < kept) values.push(undefined);
    const chained = header.hashing === CHAIN_SCHEME;
    const added = Array.isArray(header.addedHashes) ? header.addedHashes : [];
    for (const value of added) values.push(chained ? value : undefined);
    this.#seq = seq;
  }
}

/** One request rebuilt from the log, with what its header recorded. */
export interface RebuiltRequest {
  messages: readonly Message[];
  messageSeqs: readonly number[];
  params: RequestParams;
  header: RequestHeaderBody;
  recorded: ReadonlyArray<string | undefined>;
}

function messageMismatch(
  request: RebuiltRequest,
  index: number,
  values: { expected: string | undefined; actual: string },
): ReplayMismatch {
  return {
    field: `messages[${index}]`,
    eventSeq: request.messageSeqs[index] as number,
    expected: values.expected ?? 'none',
    actual: values.actual,
  };
}

/**
 * Checks a `chain/1` header. When the messages do not hash as recorded, names the first message
 * whose chain value differs from the recorded one; when they do, still checks the header's own
 * `addedHashes`, then the parameters.
 */
export function checkChain(
  hasher: IncrementalRequestHash,
  request: RebuiltRequest,
): ReplayMismatch | undefined {
  const { messages, header, recorded } = request;
  hasher.update(messages);
  const digest = hasher.digest(request.params);
  const same =
    digest.messagesHash === header.messagesHash && messages.length === header.messageCount;
  const kept = header.prefix?.kept ?? 0;
  // Values before `kept` were checked with the request that added them.
  for (let i = same ? kept : 0; i < messages.length; i++) {
    const expected = recorded[i];
    const actual = hasher.chainValue(i).slice(0, SHORT_CHAIN_LENGTH);
    if (i < recorded.length && (expected === undefined || expected === actual)) continue;
    if (!same) return messageMismatch(request, i, { expected, actual });
    return addedMismatch(header, i - kept, actual);
  }
  return checkTotals(header, digest, messages.length - kept, same);
}

/** Checks a legacy header; names the first added message whose own hash differs. */
export function checkLegacy(
  hasher: LegacyIncrementalRequestHash,
  request: RebuiltRequest,
): ReplayMismatch | undefined {
  const { messages, header } = request;
  hasher.update(messages);
  const digest = hasher.digest(request.params);
  const same =
    digest.messagesHash === header.messagesHash && messages.length === header.messageCount;
  const kept = header.prefix?.kept ?? 0;
  for (let i = kept; i < messages.length; i++) {
    const actual = legacyMessageHash(messages[i] as Message);
    const expected = header.addedHashes[i - kept];
    if (actual === expected) continue;
    if (!same) return messageMismatch(request, i, { expected, actual });
    return addedMismatch(header, i - kept, actual);
  }
  return checkTotals(header, digest, messages.length - kept, same);
}

/** The checks after the per-message ones: the messages hash, the added count, the params. */
function checkTotals(
  header: RequestHeaderBody,
  digest: RequestDigest,
  added: number,
  same: boolean,
): ReplayMismatch | undefined {
  if (!same)
    return { field: 'messages', expected: header.messagesHash, actual: digest.messagesHash };
  if (header.addedHashes.length !== added) return addedMismatch(header, added, 'none');
  if (digest.requestHash === header.requestHash) return undefined;
  return { field: 'params', expected: header.requestHash, actual: digest.requestHash };
}

/** The header's own `addedHashes[index]` is not what its (verified) messages give. */
function addedMismatch(header: RequestHeaderBody, index: number, actual: string): ReplayMismatch {
  return { field: `addedHashes[${index}]`, expected: header.addedHashes[index] ?? 'none', actual };
}
