import { ConformanceFailure, describeError } from './assert.js';
import { blobCases } from './cases-blobs.js';
import { rangeCases } from './cases-range.js';
import { recoveryCases } from './cases-recovery.js';
import { sessionCases } from './cases-session.js';
import { storeCases } from './cases-store.js';
import type { StoreConformanceCase, StoreUnderTest } from './types.js';

/**
 * Every scenario of the SessionStore conformance suite, in a stable order. Register one test per
 * case in any framework, handing each a function that makes a fresh, empty store.
 *
 * @example
 * ```ts
 * import { storeConformanceCases } from '@spine/session-log/testing';
 *
 * for (const c of storeConformanceCases) {
 *   it(c.name, () => c.run(async () => createMyStore({ dir: tempDir() })));
 * }
 * ```
 */
export const storeConformanceCases: readonly StoreConformanceCase[] = Object.freeze([
  ...storeCases,
  ...sessionCases,
  ...recoveryCases,
  ...rangeCases,
  ...blobCases,
]);

/** How long `checkSessionStore` lets one case run before reporting it as failed. */
export const DEFAULT_CASE_TIMEOUT_MS = 30_000;

/** Options of {@link checkSessionStore}. */
export interface CheckSessionStoreOptions {
  /** Milliseconds one case may take before it is reported as failed (default 30,000). */
  timeoutMs?: number;
  /** Stops before the next case; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** One case a store failed, in {@link CheckSessionStoreResult}. */
export interface StoreConformanceFailure {
  /** The case's name. */
  name: string;
  /** What was expected and what the store did. */
  message: string;
}

/** What {@link checkSessionStore} resolves to. */
export interface CheckSessionStoreResult {
  /** True when every case passed. */
  ok: boolean;
  /** How many cases passed. */
  passed: number;
  /** The cases that failed, in run order. */
  failed: StoreConformanceFailure[];
}

/** Runs `run` and resolves to a failure message, or undefined when it passed in time. */
async function outcomeOf(run: () => Promise<void>, timeoutMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(
      () => resolve(`did not finish within ${timeoutMs} ms (a store call never settled?)`),
      timeoutMs,
    );
  });
  const result = run().then(
    () => undefined,
    (error: unknown) =>
      error instanceof ConformanceFailure ? error.message : `unexpectedly ${describeError(error)}`,
  );
  try {
    return await Promise.race([result, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs every conformance case against fresh stores from `factory`, disposing of each store after
 * its case, and reports which cases failed and why. A store failure never makes it throw.
 *
 * @throws an {@link Error} only when `signal` aborts (with the signal's reason).
 * @example
 * ```ts
 * import { checkSessionStore } from '@spine/session-log/testing';
 *
 * const report = await checkSessionStore(() => ({ store: createMyStore() }));
 * if (!report.ok) console.error(report.failed); // [{ name, message }]
 * ```
 */
export async function checkSessionStore(
  factory: () => Promise<StoreUnderTest> | StoreUnderTest,
  options: CheckSessionStoreOptions = {},
): Promise<CheckSessionStoreResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS;
  const failed: StoreConformanceFailure[] = [];
  let passed = 0;
  for (const conformanceCase of storeConformanceCases) {
    options.signal?.throwIfAborted();
    const disposers: Array<() => Promise<void> | void> = [];
    const fresh = async () => {
      let made: StoreUnderTest;
      try {
        made = await factory();
      } catch (error) {
        throw new ConformanceFailure(`the store factory ${describeError(error)}`);
      }
      if (made.dispose) disposers.push(made.dispose);
      return made.store;
    };
    let message = await outcomeOf(() => conformanceCase.run(fresh), timeoutMs);
    for (const dispose of disposers.reverse()) {
      try {
        await dispose();
      } catch (error) {
        message ??= `passed, but dispose() afterwards ${describeError(error)}`;
      }
    }
    if (message === undefined) passed++;
    else failed.push({ name: conformanceCase.name, message });
  }
  return { ok: failed.length === 0, passed, failed };
}
