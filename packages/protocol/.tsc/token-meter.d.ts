import type { SessionLog } from './session.js';
import type { ToolSpec } from './tool-spec.js';
/** A measurement of how many prompt tokens the next request will take. */
export interface TokenMeasure {
  /** Calibrated estimate of the prompt tokens the provider will report. */
  tokens: number;
  /** The tokenizer's raw count before calibration. */
  rawTokens: number;
  /** The calibration factor applied (`tokens ≈ rawTokens × factor`). */
  factor: number;
}
/**
 * Counts tokens of text and of a session's model-visible context.
 *
 * Contract: `measure` costs in proportion to what changed since the last call (counts are
 * cached per event). `observe` feeds back the provider-reported prompt tokens of a request
 * so later estimates track the provider's own count.
 */
export interface TokenMeter {
  /** Interface version. */
  readonly specificationVersion: 1;
  /** Raw token count of a text. */
  countText(text: string): number;
  /** Estimated prompt tokens of the next request built from `session`. */
  measure(input: { session: SessionLog; system: string; tools: readonly ToolSpec[] }): TokenMeasure;
  /** Calibrates from a recorded request: the raw estimate made for it and what the provider reported. */
  observe(observation: { rawTokens: number; reportedTokens: number }): void;
}
//# sourceMappingURL=token-meter.d.ts.map
