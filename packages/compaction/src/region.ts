import type { SessionEvent } from '@spine/protocol';
import { isCheckpointEvent, resultCallIdOf, toolCallsOfEvent } from './internal/render.js';

/** A contiguous surface region: the seqs of its first and last surface events, inclusive. */
export interface SurfaceRegion {
  /** Seq of the first surface event of the region. */
  start: number;
  /** Seq of the last surface event of the region. */
  end: number;
}

/** A valid region and where it sits in the surface. */
export interface RegionValid {
  /** The region is valid. */
  ok: true;
  /** Index of its first event in the surface. */
  startIndex: number;
  /** Index of its last event in the surface. */
  endIndex: number;
}

/** An invalid region and why. */
export interface RegionInvalid {
  /** The region is not valid. */
  ok: false;
  /** What is wrong with it. */
  reason: string;
}

/** The verdict of {@link validateSurfaceRegion}. */
export type RegionCheck = RegionValid | RegionInvalid;

/** Options of {@link selectCompactableRange}. */
export interface SelectRangeOptions {
  /** Tokens of one surface event (as the model sees it). */
  countEvent(event: SessionEvent): number;
  /** Recent context to keep, in tokens, beyond the latest step (default 0: the latest step only). */
  keepRecentTokens?: number;
  /** The smallest region worth compacting, in events (default 2). */
  minEvents?: number;
}

/**
 * Checks that `region` is a contiguous stretch of `surface` (the surface events in order) that
 * splits no tool-call/result pair: every call inside has its result inside and every result
 * inside answers a call inside.
 *
 * @example
 * ```ts
 * const check = validateSurfaceRegion(surfaceEvents, { start: 2, end: 40 });
 * if (!check.ok) console.log(check.reason);
 * ```
 */
export function validateSurfaceRegion(
  surface: readonly SessionEvent[],
  region: SurfaceRegion,
): RegionCheck {
  const startIndex = surface.findIndex((event) => event.seq === region.start);
  if (startIndex < 0) return { ok: false, reason: `seq ${region.start} is not on the surface` };
  let endIndex = -1;
  for (let index = startIndex; index < surface.length; index++) {
    if (surface[index]?.seq === region.end) {
      endIndex = index;
      break;
    }
  }
  if (endIndex < 0) {
    return {
      ok: false,
      reason: `seq ${region.end} is not on the surface at or after ${region.start}`,
    };
  }
  const calls = new Set<string>();
  const results = new Set<string>();
  for (let index = startIndex; index <= endIndex; index++) {
    const event = surface[index] as SessionEvent;
    for (const call of toolCallsOfEvent(event)) calls.add(call.id);
    const callId = resultCallIdOf(event);
    if (callId !== undefined) {
      if (!calls.has(callId)) {
        return {
          ok: false,
          reason: `tool result seq ${event.seq} answers call ${callId} outside the region`,
        };
      }
      results.add(callId);
    }
  }
  for (const id of calls) {
    if (!results.has(id)) {
      return {
        ok: false,
        reason: `tool call ${id} has no result inside the region (a split tool batch)`,
      };
    }
  }
  return { ok: true, startIndex, endIndex };
}

/**
 * Picks the region to compact: the oldest surface history up to the latest point that leaves no
 * tool call without its result, keeping the latest step (the current turn's latest tool
 * results) and up to `keepRecentTokens` of recent context. Returns `undefined` when nothing is
 * worth compacting.
 */
export function selectCompactableRange(
  surface: readonly SessionEvent[],
  options: SelectRangeOptions,
): SurfaceRegion | undefined {
  const count = surface.length;
  if (count === 0) return undefined;
  let lastAssistant = -1;
  for (let index = count - 1; index >= 0; index--) {
    if (surface[index]?.type === 'assistant/message') {
      lastAssistant = index;
      break;
    }
  }
  let tailStart = lastAssistant >= 0 ? lastAssistant : count - 1;
  const budget = options.keepRecentTokens ?? 0;
  let tailTokens = 0;
  for (let index = tailStart; index < count; index++) {
    tailTokens += options.countEvent(surface[index] as SessionEvent);
  }
  while (tailStart > 0) {
    const next = options.countEvent(surface[tailStart - 1] as SessionEvent);
    if (tailTokens + next > budget) break;
    tailTokens += next;
    tailStart--;
  }
  const pending = new Set<string>();
  let endIndex = -1;
  for (let index = 0; index < tailStart; index++) {
    const event = surface[index] as SessionEvent;
    for (const call of toolCallsOfEvent(event)) pending.add(call.id);
    const callId = resultCallIdOf(event);
    if (callId !== undefined) pending.delete(callId);
    if (pending.size === 0) endIndex = index;
  }
  const minEvents = options.minEvents ?? 2;
  if (endIndex + 1 < minEvents) return undefined;
  let fresh = false;
  for (let index = 0; index <= endIndex && !fresh; index++) {
    fresh = !isCheckpointEvent(surface[index] as SessionEvent);
  }
  if (!fresh) return undefined;
  return { start: (surface[0] as SessionEvent).seq, end: (surface[endIndex] as SessionEvent).seq };
}
