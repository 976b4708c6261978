import { type WebFetchProviderFixture, webFetchCases } from './fetch-cases.js';
import {
  type CheckOptions,
  type ConformanceCase,
  type ConformanceReport,
  runCases,
} from './kit.js';
import { type WebSearchProviderFixture, webSearchCases } from './search-cases.js';

/**
 * Every scenario of the WebSearchProvider conformance kit, in a stable order. Register one test
 * per case in any framework.
 *
 * @example
 * ```ts
 * import { webSearchConformanceCases } from '@spine/web-tools/testing';
 *
 * const fixture = {
 *   configured: () => createMySearch({ apiKey: 'k', baseUrl: server.url }),
 *   unconfigured: () => createMySearch({ env: {} }),
 * };
 * for (const c of webSearchConformanceCases) it(c.name, () => c.run(fixture));
 * ```
 */
export const webSearchConformanceCases: readonly ConformanceCase<WebSearchProviderFixture>[] =
  Object.freeze([...webSearchCases]);

/**
 * Every scenario of the WebFetchProvider conformance kit, in a stable order.
 *
 * @example
 * ```ts
 * const fixture = { provider: () => createMyFetch(), pageUrl: () => `${site.url}/kit-page` };
 * for (const c of webFetchConformanceCases) it(c.name, () => c.run(fixture));
 * ```
 */
export const webFetchConformanceCases: readonly ConformanceCase<WebFetchProviderFixture>[] =
  Object.freeze([...webFetchCases]);

/**
 * Runs every WebSearchProvider case and reports which failed and why. A failing provider never
 * makes it throw.
 *
 * @throws an {@link Error} only when `options.signal` aborts (with the signal's reason).
 * @example
 * ```ts
 * const report = await checkWebSearchProvider(fixture);
 * if (!report.ok) console.error(report.failed); // [{ name, message }]
 * ```
 */
export function checkWebSearchProvider(
  fixture: WebSearchProviderFixture,
  options: CheckOptions = {},
): Promise<ConformanceReport> {
  return runCases(webSearchConformanceCases, fixture, options);
}

/**
 * Runs every WebFetchProvider case and reports which failed and why.
 *
 * @throws an {@link Error} only when `options.signal` aborts (with the signal's reason).
 * @example
 * ```ts
 * const report = await checkWebFetchProvider({ provider: () => createMyFetch(), pageUrl: () => url });
 * ```
 */
export function checkWebFetchProvider(
  fixture: WebFetchProviderFixture,
  options: CheckOptions = {},
): Promise<ConformanceReport> {
  return runCases(webFetchConformanceCases, fixture, options);
}
