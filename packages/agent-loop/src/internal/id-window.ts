// The tool call ids a session has used, in a structure whose size does not grow with their number:
// the first `limit` ids and the newest `limit` ids exactly, and every other one in a Bloom filter.
// A lookup is exact ("used" / "not used") except for a Bloom hit outside the two windows
// ("maybe"), which the caller settles by an exact scan of the log (rare: ~2% at a million ids with
// the default sizes). Kept as a projection's state (JSON: the filter serialises itself).

import type { JsonValue } from '@spine/protocol';
import { BloomBits } from './bloom.js';

/** Ids kept exactly at each end of the session (the first ones and the newest ones). */
export const EXACT_IDS = 1024;
/** Bits of the Bloom filter for the ids between the two windows (256 KiB). */
export const BLOOM_BITS = 2 ** 21;
/** Bits set per id in the Bloom filter. */
export const BLOOM_PROBES = 5;

/** Sizes of an id window (tests use small ones to reach the filter quickly). */
export interface IdWindowSizes {
  limit: number;
  bloomBits: number;
  probes: number;
}

/** The state: JSON as stored; `bloom` becomes a {@link BloomBits} on first use after a restore. */
export interface IdWindowState {
  /** Ids recorded so far (repeats included). */
  count: number;
  limit: number;
  bloomBits: number;
  probes: number;
  /** The first `limit` ids, in order. */
  first: string[];
  /** The newest ids after `first` (at most `limit`), oldest first. */
  newest: string[];
  /** Every id that left `newest` (null until one has); a string as read from a snapshot. */
  bloom: BloomBits | string | null;
  [key: string]: JsonValue | BloomBits;
}

/** An empty window with the default sizes (or `sizes`). */
export function emptyIdWindow(sizes: Partial<IdWindowSizes> = {}): IdWindowState {
  return {
    count: 0,
    limit: sizes.limit ?? EXACT_IDS,
    bloomBits: sizes.bloomBits ?? BLOOM_BITS,
    probes: sizes.probes ?? BLOOM_PROBES,
    first: [],
    newest: [],
    bloom: null,
  };
}

/** The filter of `state`, decoded from its stored form on first use (undefined: none yet). */
export function bloomOf(state: IdWindowState): BloomBits | undefined {
  if (typeof state.bloom === 'string') state.bloom = BloomBits.decode(state.bloom);
  return state.bloom ?? undefined;
}

/** Records one used id. */
export function recordId(state: IdWindowState, id: string): void {
  state.count++;
  if (state.first.length < state.limit) {
    state.first.push(id);
    return;
  }
  state.newest.push(id);
  if (state.newest.length <= state.limit) return;
  const left = state.newest.shift() as string;
  let bloom = bloomOf(state);
  if (!bloom) {
    bloom = new BloomBits(state.bloomBits, state.probes);
    state.bloom = bloom;
  }
  bloom.add(left);
}

/** The state version 1 kept (every id, in order) in this form, as folding the log would give. */
export function migrateIdList(
  ids: readonly string[],
  sizes?: Partial<IdWindowSizes>,
): IdWindowState {
  const state = emptyIdWindow(sizes);
  for (const id of ids) recordId(state, id);
  return state;
}

/** True when `value` has the shape of an {@link IdWindowState} (a stored state is checked). */
export function isIdWindow(value: unknown): value is IdWindowState {
  const state = value as IdWindowState | null;
  return (
    typeof state === 'object' &&
    state !== null &&
    Array.isArray(state.first) &&
    Array.isArray(state.newest) &&
    Number.isSafeInteger(state.count) &&
    Number.isSafeInteger(state.limit) &&
    (state.bloom === null || typeof state.bloom === 'string' || state.bloom instanceof BloomBits)
  );
}
