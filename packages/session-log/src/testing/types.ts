import type { SessionStore } from '@spine/protocol';

/**
 * One scenario of the SessionStore conformance suite. `run` resolves when the store behaves as
 * Spine's stores do and throws an `Error` saying what was expected and what the store did when
 * it does not. It calls `fresh` for each empty store it needs (usually once).
 */
export interface StoreConformanceCase {
  /** What the store must do, as a sentence (use it as the test name). */
  readonly name: string;
  /**
   * Runs the scenario against stores made by `fresh`.
   *
   * @throws an {@link Error} when the store does not behave as the scenario expects.
   */
  run(fresh: () => Promise<SessionStore>): Promise<void>;
}

/** What a factory given to `checkSessionStore` returns: a fresh, empty store and how to dispose of it. */
export interface StoreUnderTest {
  /** An empty store that no other case uses. */
  store: SessionStore;
  /** Releases what the store holds (close a database, remove a directory); called after its case. */
  dispose?: () => Promise<void> | void;
}
