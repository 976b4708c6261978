// Public API of @spine/checkpoints/testing. Every export here is a semver promise.
// The CheckpointStore conformance kit, free of any test framework: a store written outside Spine
// runs it to show it keeps the interface's contract (real files in temporary folders).

import type { CheckOptions, ConformanceCase, ConformanceReport } from '@spine/protocol/testing';
import { runCases } from '@spine/protocol/testing';
import { type CheckpointStoreFixture, checkpointStoreCases } from './testing/cases.js';

export type {
  CheckOptions,
  ConformanceCase,
  ConformanceCaseFailure,
  ConformanceReport,
} from '@spine/protocol/testing';
export { ConformanceFailure, DEFAULT_CASE_TIMEOUT_MS } from '@spine/protocol/testing';
export type { CheckpointStoreFixture } from './testing/cases.js';

/**
 * Every scenario of the CheckpointStore conformance kit. Register one test per case in any
 * framework.
 *
 * @example
 * ```ts
 * import { checkpointStoreConformanceCases } from '@spine/checkpoints/testing';
 *
 * const fixture = { store: (workspace, directory) => createMyStore({ workspace, directory }) };
 * for (const c of checkpointStoreConformanceCases) it(c.name, () => c.run(fixture));
 * ```
 */
export const checkpointStoreConformanceCases: readonly ConformanceCase<CheckpointStoreFixture>[] =
  checkpointStoreCases;

/**
 * Runs every CheckpointStore case and reports which failed and why; a failing store never makes
 * it throw.
 *
 * @throws an {@link Error} only when `options.signal` aborts (with the signal's reason).
 * @example
 * ```ts
 * const report = await checkCheckpointStore({ store: (workspace, directory) => createMyStore({ workspace, directory }) });
 * if (!report.ok) console.error(report.failed);
 * ```
 */
export function checkCheckpointStore(
  fixture: CheckpointStoreFixture,
  options: CheckOptions = {},
): Promise<ConformanceReport> {
  return runCases(checkpointStoreConformanceCases, fixture, options);
}
