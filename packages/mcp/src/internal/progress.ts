// A server may send progress notifications without limit (30,000 printed 30,000 terminal lines):
// a burst passes, then at most one per interval, and the last one is never lost.

/** Progress notifications passed on at once before coalescing starts. */
export const PROGRESS_BURST = 5;
/** The least time between two progress reports once coalescing started, ms. */
export const PROGRESS_INTERVAL_MS = 250;

/** A clock and timer, injectable for tests. */
export interface ProgressClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: ProgressClock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Coalesces a stream of reports; `flush` passes on the last one held (call it when the call ends). */
export interface Coalescer<T> {
  push(value: T): void;
  flush(): void;
}

/** Passes the first `burst` values at once, then at most one per `intervalMs`, the latest. */
export function coalesce<T>(
  emit: (value: T) => void,
  options: { burst?: number; intervalMs?: number; clock?: ProgressClock } = {},
): Coalescer<T> {
  const burst = options.burst ?? PROGRESS_BURST;
  const interval = options.intervalMs ?? PROGRESS_INTERVAL_MS;
  const clock = options.clock ?? realClock;
  let passed = 0;
  let last = Number.NEGATIVE_INFINITY;
  let held: { value: T } | undefined;
  let timer: unknown;
  const send = (value: T): void => {
    passed += 1;
    last = clock.now();
    emit(value);
  };
  const release = (): void => {
    timer = undefined;
    if (!held) return;
    const { value } = held;
    held = undefined;
    send(value);
  };
  return {
    push(value) {
      if (passed < burst) return send(value);
      const wait = last + interval - clock.now();
      if (wait <= 0 && timer === undefined) return send(value);
      held = { value };
      if (timer === undefined) timer = clock.setTimeout(release, Math.max(0, wait));
    },
    flush() {
      if (timer !== undefined) clock.clearTimeout(timer);
      release();
    },
  };
}
