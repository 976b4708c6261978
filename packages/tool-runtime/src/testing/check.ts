import {
  type CheckOptions,
  type ConformanceCase,
  type ConformanceReport,
  runCases,
} from './kit.js';
import { type ToolSchedulerFixture, toolSchedulerCases } from './scheduler-cases.js';

/**
 * Every scenario of the ToolScheduler conformance kit, in a stable order. The cases hand the
 * scheduler the kit's own `kit_*` tools. Register one test per case in any framework.
 *
 * @example
 * ```ts
 * import { toolSchedulerConformanceCases } from '@spine/tool-runtime/testing';
 *
 * const fixture = { scheduler: (tools) => createMyScheduler(tools) };
 * for (const c of toolSchedulerConformanceCases) it(c.name, () => c.run(fixture));
 * ```
 */
export const toolSchedulerConformanceCases: readonly ConformanceCase<ToolSchedulerFixture>[] =
  Object.freeze([...toolSchedulerCases]);

/**
 * Runs every ToolScheduler case and reports which failed and why. A failing scheduler never
 * makes it throw.
 *
 * @throws an {@link Error} only when `options.signal` aborts (with the signal's reason).
 * @example
 * ```ts
 * const report = await checkToolScheduler({ scheduler: (tools) => createMyScheduler(tools) });
 * if (!report.ok) console.error(report.failed); // [{ name, message }]
 * ```
 */
export function checkToolScheduler(
  fixture: ToolSchedulerFixture,
  options: CheckOptions = {},
): Promise<ConformanceReport> {
  return runCases(toolSchedulerConformanceCases, fixture, options);
}
