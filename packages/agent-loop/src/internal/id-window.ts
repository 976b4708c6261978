// The tool call ids a session has used, in a structure whose size is bounded and follows what it
// holds: the first `limit` ids and the newest `limit` ids exactly, and every other one in Bloom
// filters that are added as ids arrive, each twice the size of the one before, until together they
// reach `bloomBits` (the last one then takes every further id). A lookup is exact ("used" / "not
// used") except for a filter hit outside the two windows ("maybe"), which the caller settles by an
// exact scan of the log. Kept as a projection's state (JSON: each filter serialises itself).
//
// Sizes: a filter is given 16 bits per id before the next one starts, with 11 probes (the optimum
// for 16 bits per id: about 0.05% of fresh ids hit a full filter). 9,086 ids (a 100k-event coding
// session) take three filters, 14 KiB, and 0.13% of fresh ids hit one. About 130,000 ids reach
// the 256 KiB cap; the last filter (half of it) then takes every further id, with 5 probes, which
// degrade gently as it overfills, as version 2's one filter did (0.4% hits at 130,000 ids, 2.6%
// at 200,000; version 2: 0.13% and 0.75%). Version 2 allocated its whole 256 KiB filter for the
// first id that left the windows, so that every snapshot past 2,048 ids carried 349,532 characters
// of base64, mostly zeros (98% of its bits at 9,086 ids).

import type { JsonValue } from '@spine/protocol';
import { BloomBits } from './bloom.js';

/** Ids kept exactly at each end of the session (the first ones and the newest ones). */
export const EXACT_IDS = 1024;
/** Bits all the Bloom filters take together at most (256 KiB). */
export const BLOOM_BITS = 2 ** 21;
/** Bits of the first Bloom filter (2 KiB); each next one has twice as many. */
export const FIRST_BLOOM_BITS = 2 ** 14;
/** Bits per id a filter holds before the next one starts. */
export const BITS_PER_ID = 16;
/** Bits set per id in a Bloom filter (version 2's filters, migrated, keep their 5). */
export const BLOOM_PROBES = 11;
/** Bits set per id in the last filter, which takes every id once the cap is reached. */
export const LAST_FILTER_PROBES = 5;

/** Sizes of an id window (tests use small ones to reach the filters quickly). */
export interface IdWindowSizes {
  limit: number;
  /** Bits of all filters together at most. */
  bloomBits: number;
  /** Bits of the first filter. */
  firstBloomBits: number;
  probes: number;
}

/** One Bloom filter of ids that left the newest window. */
export interface IdFilter {
  /** Bits (a power of two). */
  size: number;
  /** Ids added to it (repeats included). */
  ids: number;
  /** The filter; a string (`<probes>:<base64>`) as read from a snapshot until first used. */
  bits: BloomBits | string;
  [key: string]: JsonValue | BloomBits;
}

/** The state: JSON as stored; each filter's `bits` becomes a {@link BloomBits} on first use. */
export interface IdWindowState {
  /** Ids recorded so far (repeats included). */
  count: number;
  limit: number;
  bloomBits: number;
  firstBloomBits: number;
  probes: number;
  /** The first `limit` ids, in order. */
  first: string[];
  /** The newest ids after `first` (at most `limit`), oldest first. */
  newest: string[];
  /** The filters of every id that left `newest`, oldest (smallest) first. */
  filters: IdFilter[];
  [key: string]: JsonValue | IdFilter[];
}

/** An empty window with the default sizes (or `sizes`). */
export function emptyIdWindow(sizes: Partial<IdWindowSizes> = {}): IdWindowState {
  const bloomBits = sizes.bloomBits ?? BLOOM_BITS;
  return {
    count: 0,
    limit: sizes.limit ?? EXACT_IDS,
    bloomBits,
    firstBloomBits: Math.min(sizes.firstBloomBits ?? FIRST_BLOOM_BITS, bloomBits),
    probes: sizes.probes ?? BLOOM_PROBES,
    first: [],
    newest: [],
    filters: [],
  };
}

/** The bits of `filter`, decoded from its stored form on first use. */
function bitsOf(filter: IdFilter): BloomBits {
  if (typeof filter.bits === 'string') filter.bits = BloomBits.decode(filter.bits);
  return filter.bits;
}

/** True when some filter of `state` may hold `id` (false: `id` never left the newest window). */
export function filtersMayHave(state: IdWindowState, id: string): boolean {
  for (const filter of state.filters) if (bitsOf(filter).mayHave(id)) return true;
  return false;
}

/** The filter the next id goes to: the last one, or a new one twice its size once it is full. */
function filterForNext(state: IdWindowState): IdFilter {
  const last = state.filters.at(-1);
  let total = 0;
  for (const filter of state.filters) total += filter.size;
  if (last) {
    if (last.ids < Math.max(1, last.size / BITS_PER_ID)) return last;
    if (total + 2 * last.size > state.bloomBits) return last;
  }
  const size = last ? 2 * last.size : state.firstBloomBits;
  // No filter after this one: it will take every further id.
  const final = total + 3 * size > state.bloomBits;
  const probes = final ? Math.min(state.probes, LAST_FILTER_PROBES) : state.probes;
  const added: IdFilter = { size, ids: 0, bits: new BloomBits(size, probes) };
  state.filters.push(added);
  return added;
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
  const filter = filterForNext(state);
  filter.ids++;
  bitsOf(filter).add(left);
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

/**
 * The state version 2 kept (the two windows and one filter of `bloomBits` bits, allocated whole
 * for the first id that left the newest window) in this form, without reading the log: that
 * filter folded to the size a filter of this version holding as many ids has. Undefined when
 * `value` does not have version 2's shape.
 */
export function migrateSingleFilter(
  value: JsonValue,
  sizes?: Partial<IdWindowSizes>,
): IdWindowState | undefined {
  const old = value as {
    count?: unknown;
    limit?: unknown;
    first?: unknown;
    newest?: unknown;
    bloom?: unknown;
  } | null;
  if (
    typeof old !== 'object' ||
    old === null ||
    !Number.isSafeInteger(old.count) ||
    !Number.isSafeInteger(old.limit) ||
    !Array.isArray(old.first) ||
    !Array.isArray(old.newest) ||
    (old.bloom !== null && typeof old.bloom !== 'string')
  ) {
    return undefined;
  }
  // The old filter keeps its probes (they are part of its bits' form); new filters use ours.
  const state = emptyIdWindow({ ...sizes, limit: old.limit as number });
  state.count = old.count as number;
  state.first = old.first as string[];
  state.newest = old.newest as string[];
  if (typeof old.bloom !== 'string') return state;
  const bits = BloomBits.decode(old.bloom);
  const ids = Math.max(0, state.count - state.first.length - state.newest.length);
  let size = Math.min(state.firstBloomBits, bits.bits.length * 8);
  while (size < bits.bits.length * 8 && size / BITS_PER_ID < ids) size *= 2;
  state.filters.push({ size, ids, bits: bits.foldTo(size) });
  return state;
}

function isFilter(value: unknown): value is IdFilter {
  const filter = value as IdFilter | null;
  return (
    typeof filter === 'object' &&
    filter !== null &&
    Number.isSafeInteger(filter.size) &&
    filter.size >= 8 &&
    (filter.size & (filter.size - 1)) === 0 &&
    Number.isSafeInteger(filter.ids) &&
    (typeof filter.bits === 'string' || filter.bits instanceof BloomBits)
  );
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
    Number.isSafeInteger(state.bloomBits) &&
    Number.isSafeInteger(state.firstBloomBits) &&
    Number.isSafeInteger(state.probes) &&
    Array.isArray(state.filters) &&
    state.filters.every(isFilter)
  );
}
