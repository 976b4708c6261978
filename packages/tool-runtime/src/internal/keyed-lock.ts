/** A mutex per key: `run(keys, fn)` waits until no other holder of any of `keys` runs, then runs `fn`. */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` while holding every key (acquired together, so two holders never deadlock). */
  async run<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    if (keys.length === 0) return fn();
    const unique = [...new Set(keys)].sort();
    const previous = unique.map((key) => this.tails.get(key) ?? Promise.resolve());
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    for (const key of unique) this.tails.set(key, mine);
    try {
      await Promise.all(previous);
      return await fn();
    } finally {
      release();
      for (const key of unique) if (this.tails.get(key) === mine) this.tails.delete(key);
    }
  }
}
