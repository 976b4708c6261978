// Sides for scripts/lib/bench-interleave.ts's `interleave` whose round is cut into slices: each
// side handles a whole session's events per round, but in `slices` calls (1,000 events each in
// append.bench.ts and chain.bench.ts), and the sides take turns call by call (interleave's order
// alternates and rotates). A side's round time is the sum of its slices (`perRound`).
//
// Why: on this 2-core machine under load ~6-9, half or more of a side's wall time is spent
// waiting for a core, and that wait comes in bursts of tens to hundreds of ms. A side that ran a
// whole session in one piece (~100 ms idle) caught a burst that the other side of its round
// missed: per-round ratios spread from 0.6 to 2.9. Taking turns every ~10 ms puts both sides
// under the same bursts; what remains is the wait's own randomness, which only more rounds
// average out. Between slices only microtasks run (interleave awaits each side), so a timer of
// the code measured (the JSONL store's flush timer) cannot do its work untimed in between; each
// side checks that no event-loop turn happened during its round, so setup that turns the loop
// (the first Session.create imports the event schemas) must run before the rounds.
import { type BenchSide, cpuNow } from '../../../scripts/lib/bench-interleave.js';
import { createJsonlStore, Session } from '../src/index.js';

/** The work of one side, per round: set up, run the events of each slice, finish, clean up. */
export interface SlicedWork {
  /** Before the round's first slice; not timed. */
  begin?: (round: number) => void | Promise<void>;
  /** The events `[from, to)` of the round; timed. */
  run: (from: number, to: number) => void;
  /** After the round's last `run`, timed with it (e.g. closing the session writes its tail). */
  finish?: (round: number) => void | Promise<void>;
  /** After `finish`; not timed. */
  cleanup?: (round: number) => void;
}

/** Options of {@link slicedSide}. */
export interface SlicedSideOptions {
  /** Events per round. */
  events: number;
  /** Calls per round. */
  slices: number;
  /** Receives the process CPU time (user + system, ms) of each call, in call order. */
  cpu?: number[];
}

/**
 * A side for `interleave` that runs one slice of a round per call and returns the slice's time.
 * @throws when the event loop turned between two slices of a round (work could escape timing).
 */
export function slicedSide(work: SlicedWork, options: SlicedSideOptions): BenchSide {
  const { events, slices, cpu } = options;
  let calls = 0;
  let loopTurned = false;
  return async () => {
    const round = Math.floor(calls / slices);
    const slice = calls++ % slices;
    if (slice === 0) {
      await work.begin?.(round);
      loopTurned = false;
      setImmediate(() => {
        loopTurned = true;
      });
    }
    const from = Math.floor((slice * events) / slices);
    const to = Math.floor(((slice + 1) * events) / slices);
    const cpuStart = cpuNow();
    const start = performance.now();
    work.run(from, to);
    const last = slice === slices - 1;
    if (last) {
      if (loopTurned) throw new Error('the event loop turned during a round: work escaped timing');
      await work.finish?.(round);
    }
    const ms = performance.now() - start;
    cpu?.push(cpuNow() - cpuStart);
    if (last) work.cleanup?.(round);
    return ms;
  };
}

/** Per-round sums of per-slice values: `rounds` groups of `slices` consecutive values. */
export function perRound(values: readonly number[], slices: number, rounds: number): number[] {
  return Array.from({ length: rounds }, (_, round) =>
    values.slice(round * slices, (round + 1) * slices).reduce((sum, value) => sum + value, 0),
  );
}

/**
 * Creates and closes one throwaway session in `dir`: the first `Session.create` loads the event
 * schemas with a dynamic import (an event-loop turn), which no measured round may see.
 */
export async function loadEventSchemas(dir: string): Promise<void> {
  const store = createJsonlStore({ dir, fsync: 'never' });
  await (await Session.create({ store, id: 'schemas', snapshots: false })).close();
}
