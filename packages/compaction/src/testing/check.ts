import { type CompactionEngineFixture, compactionEngineCases } from './cases-engine.js';
import { type TokenMeterFixture, tokenMeterCases } from './cases-meter.js';
import { type SummarizerFixture, summarizerCases } from './cases-summarizer.js';
import {
  type CheckOptions,
  type ConformanceCase,
  type ConformanceReport,
  runCases,
} from './kit.js';

/**
 * Every scenario of the TokenMeter conformance kit, in a stable order. Register one test per
 * case in any framework.
 *
 * @example
 * ```ts
 * import { tokenMeterConformanceCases } from '@spine/compaction/testing';
 *
 * const fixture = { meter: () => createMyMeter(), session: () => Session.create({ store: createMemoryStore() }) };
 * for (const c of tokenMeterConformanceCases) it(c.name, () => c.run(fixture));
 * ```
 */
export const tokenMeterConformanceCases: readonly ConformanceCase<TokenMeterFixture>[] =
  Object.freeze([...tokenMeterCases]);

/**
 * Every scenario of the Summarizer conformance kit, in a stable order.
 *
 * @example
 * ```ts
 * for (const c of summarizerConformanceCases) it(c.name, () => c.run({ summarizer: () => mine }));
 * ```
 */
export const summarizerConformanceCases: readonly ConformanceCase<SummarizerFixture>[] =
  Object.freeze([...summarizerCases]);

/**
 * Every scenario of the CompactionEngine conformance kit, in a stable order.
 *
 * @example
 * ```ts
 * const fixture = { engine: () => createMyEngine(), session: () => Session.create({ store: createMemoryStore() }) };
 * for (const c of compactionEngineConformanceCases) it(c.name, () => c.run(fixture));
 * ```
 */
export const compactionEngineConformanceCases: readonly ConformanceCase<CompactionEngineFixture>[] =
  Object.freeze([...compactionEngineCases]);

/**
 * Runs every TokenMeter case and reports which failed and why. A failing meter never makes it
 * throw.
 *
 * @throws an {@link Error} only when `options.signal` aborts (with the signal's reason).
 * @example
 * ```ts
 * const report = await checkTokenMeter({ meter: () => createMyMeter(), session: newSession });
 * if (!report.ok) console.error(report.failed); // [{ name, message }]
 * ```
 */
export function checkTokenMeter(
  fixture: TokenMeterFixture,
  options: CheckOptions = {},
): Promise<ConformanceReport> {
  return runCases(tokenMeterConformanceCases, fixture, options);
}

/**
 * Runs every Summarizer case and reports which failed and why.
 *
 * @throws an {@link Error} only when `options.signal` aborts (with the signal's reason).
 * @example
 * ```ts
 * const report = await checkSummarizer({ summarizer: () => createMySummarizer() });
 * ```
 */
export function checkSummarizer(
  fixture: SummarizerFixture,
  options: CheckOptions = {},
): Promise<ConformanceReport> {
  return runCases(summarizerConformanceCases, fixture, options);
}

/**
 * Runs every CompactionEngine case and reports which failed and why.
 *
 * @throws an {@link Error} only when `options.signal` aborts (with the signal's reason).
 * @example
 * ```ts
 * const report = await checkCompactionEngine({ engine: () => createMyEngine(), session: newSession });
 * ```
 */
export function checkCompactionEngine(
  fixture: CompactionEngineFixture,
  options: CheckOptions = {},
): Promise<ConformanceReport> {
  return runCases(compactionEngineConformanceCases, fixture, options);
}
