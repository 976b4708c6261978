import {
  type CheckOptions,
  type ConformanceCase,
  type ConformanceReport,
  runCases,
} from './kit.js';
import { type ModelClientFixture, modelClientCases } from './model-cases.js';

/**
 * Every scenario of the ModelClient conformance kit, in a stable order. Each case starts its own
 * scripted loopback server (real OpenAI-compatible or Anthropic SSE bytes) and closes it after.
 * Register one test per case in any framework.
 *
 * @example
 * ```ts
 * import { modelClientConformanceCases } from '@spine/llm/testing';
 *
 * const fixture = { client: (baseUrl: string) => createMyClient({ baseUrl }) };
 * for (const c of modelClientConformanceCases) it(c.name, () => c.run(fixture));
 * ```
 */
export const modelClientConformanceCases: readonly ConformanceCase<ModelClientFixture>[] =
  Object.freeze([...modelClientCases]);

/**
 * Runs every ModelClient case and reports which failed and why. A failing client never makes
 * it throw.
 *
 * @throws an {@link Error} only when `options.signal` aborts (with the signal's reason).
 * @example
 * ```ts
 * const report = await checkModelClient({ client: (baseUrl) => createMyClient({ baseUrl }) });
 * if (!report.ok) console.error(report.failed); // [{ name, message }]
 * ```
 */
export function checkModelClient(
  fixture: ModelClientFixture,
  options: CheckOptions = {},
): Promise<ConformanceReport> {
  return runCases(modelClientConformanceCases, fixture, options);
}
