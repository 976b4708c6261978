import { setTimeout as sleep } from 'node:timers/promises';
import type { LspClient } from './client.js';

/** Timing of {@link waitForAnalysis}. */
export interface ReadinessOptions {
  /** Give up after this long and call the answer partial (ms). */
  timeoutMs: number;
  /** No progress report for this long after the last one counts as done (ms). */
  quietMs: number;
  /**
   * On the first wait after a start: how long to wait for a sign of finished analysis (the end
   * of a progress report, or the first pushed diagnostics) before assuming the server gives
   * none (ms).
   */
  firstReportMs: number;
  signal?: AbortSignal;
}

const POLL_MS = 25;

/**
 * Waits until the server has finished its current analysis. The first time after a start,
 * that is when a work-done progress report has ended (tsserver's project loading) or the server
 * has pushed its first diagnostics, which servers do once the opened files are analysed
 * (pyright publishes only after it has found every source file). Later, it is while a progress
 * report is open. Returns false when `timeoutMs` passed first, so the caller can say the answer
 * may be partial.
 */
export async function waitForAnalysis(
  client: LspClient,
  first: boolean,
  options: ReadinessOptions,
): Promise<boolean> {
  const start = performance.now();
  for (;;) {
    if (options.signal?.aborted || !client.alive) return false;
    const now = performance.now();
    if (!client.busy) {
      if (!first) return true;
      if (client.diagnostics.size > 0) return true;
      const heard = client.progressEnded > 0;
      if (heard && now - client.lastProgressAt >= options.quietMs) return true;
      if (now - start >= options.firstReportMs) return true;
    }
    if (now - start >= options.timeoutMs) return false;
    await sleep(POLL_MS);
  }
}
