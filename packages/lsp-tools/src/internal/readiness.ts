import { setTimeout as sleep } from 'node:timers/promises';
import type { LspClient } from './client.js';

/** Timing of {@link waitForAnalysis}. */
export interface ReadinessOptions {
  /** Give up after this long and call the answer partial (ms). */
  timeoutMs: number;
  /** No progress report for this long after the last one counts as done (ms). */
  quietMs: number;
  /**
   * On the first wait after a start: how long to wait for the server to report any progress at
   * all before assuming it does not report progress (ms).
   */
  firstReportMs: number;
  signal?: AbortSignal;
}

const POLL_MS = 25;

/**
 * Waits until the server has finished its current analysis, as its work-done progress reports
 * say (tsserver's project loading, pyright's analysis). Returns false when `timeoutMs` passed
 * first, so the caller can say the answer may be partial.
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
      const heard = client.progressEnded > 0;
      if (heard && now - client.lastProgressAt >= options.quietMs) return true;
      if (client.lastProgressAt === 0 && now - start >= options.firstReportMs) return true;
    }
    if (now - start >= options.timeoutMs) return false;
    await sleep(POLL_MS);
  }
}
