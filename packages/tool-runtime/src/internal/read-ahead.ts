// Bounded read-ahead for the grep tool: up to `width` loads run at once while results come out in
// the order of the source, so a search does its file I/O concurrently but its output is the same
// as one file at a time. A load's failure is raised when its turn comes, as a sequential loop would.

type Settled<R> = { value: R } | { error: unknown };

function settle<R>(promise: Promise<R>): Promise<Settled<R>> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

/**
 * Yields `load(item)` for every item of `source`, in source order, keeping up to `width` loads in
 * flight. Stopping early (a `break` in the consumer) stops pulling from `source`; loads already
 * started finish unobserved.
 */
export async function* readAhead<T, R>(
  source: AsyncIterable<T> | Iterable<T>,
  load: (item: T) => Promise<R>,
  width: number,
): AsyncGenerator<R> {
  const iterator =
    Symbol.asyncIterator in source
      ? source[Symbol.asyncIterator]()
      : (source as Iterable<T>)[Symbol.iterator]();
  const pending: Array<Promise<Settled<R>>> = [];
  let exhausted = false;
  try {
    while (true) {
      while (!exhausted && pending.length < width) {
        const next = await iterator.next();
        if (next.done) exhausted = true;
        else pending.push(settle(load(next.value)));
      }
      const head = pending.shift();
      if (!head) return;
      const settled = await head;
      if ('error' in settled) throw settled.error;
      yield settled.value;
    }
  } finally {
    if (!exhausted) await iterator.return?.();
  }
}
