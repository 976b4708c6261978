/** Maps raw tokenizer counts to what the provider reports, learned from observations. */
export interface Calibration {
  /** Records one request: the raw estimate made for it and the provider's prompt tokens. */
  observe(rawTokens: number, reportedTokens: number): void;
  /** The calibrated estimate for a raw count. */
  estimate(rawTokens: number): number;
  /** The ratio-only factor (for callers that scale counts, such as region sizes). */
  readonly factor: number;
}

const WINDOW = 6;
const MIN_SPREAD = 0.02;

/**
 * Calibration in two layers. A provider's count is close to `a × raw + b`: `a` is the tokenizer
 * difference, `b` the chat template and wire framing. With two or more recent observations of
 * different sizes it fits `a` and `b` by least squares over the last few requests (so a growing
 * session does not lag behind a fixed overhead); it also keeps a ratio smoothed towards the
 * newest observation. Each new observation scores both on how well they predicted it, and the
 * estimate uses whichever has been predicting better.
 */
export function createCalibration(weight: number): Calibration {
  const samples: { raw: number; reported: number }[] = [];
  let factor = 1;
  let observed = false;
  let fit: { a: number; b: number } | undefined;
  let ratioError = 0;
  // An unscored fit is trusted first: with growing requests it beats the ratio from the start.
  let fitError: number | undefined;

  function refit(): void {
    fit = undefined;
    if (samples.length < 2) return;
    let meanX = 0;
    let meanY = 0;
    for (const sample of samples) {
      meanX += sample.raw / samples.length;
      meanY += sample.reported / samples.length;
    }
    let sxx = 0;
    let sxy = 0;
    for (const sample of samples) {
      sxx += (sample.raw - meanX) ** 2;
      sxy += (sample.raw - meanX) * (sample.reported - meanY);
    }
    if (Math.sqrt(sxx / samples.length) < MIN_SPREAD * meanX) return;
    const a = sxy / sxx;
    const b = meanY - a * meanX;
    if (a >= 0.25 && a <= 4 && b >= -0.5 * meanY && b <= 0.9 * meanY) fit = { a, b };
  }

  return {
    get factor() {
      return factor;
    },
    observe(rawTokens, reportedTokens) {
      if (!(rawTokens > 0) || !(reportedTokens > 0)) return;
      if (observed) {
        const byRatio = Math.abs(rawTokens * factor - reportedTokens) / reportedTokens;
        ratioError = 0.5 * ratioError + 0.5 * byRatio;
        if (fit) {
          const byFit = Math.abs(fit.a * rawTokens + fit.b - reportedTokens) / reportedTokens;
          fitError = fitError === undefined ? byFit : 0.5 * fitError + 0.5 * byFit;
        }
      }
      const ratio = Math.min(4, Math.max(0.25, reportedTokens / rawTokens));
      factor = observed ? weight * ratio + (1 - weight) * factor : ratio;
      observed = true;
      samples.push({ raw: rawTokens, reported: reportedTokens });
      if (samples.length > WINDOW) samples.shift();
      refit();
    },
    estimate(rawTokens) {
      if (fit && (fitError ?? 0) <= ratioError && rawTokens > 0)
        return Math.max(0, Math.ceil(fit.a * rawTokens + fit.b));
      return Math.ceil(rawTokens * factor);
    },
  };
}
