let clockMs = 0;
let clockIso = '';
let secondMs = Number.NaN;
let secondPrefix = '';
const MS_TEXT = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, '0')}Z`);

/**
 * `new Date().toISOString()`, computed at most once per millisecond (appends are hot), and
 * within one second only the milliseconds change: the `YYYY-MM-DDTHH:MM:SS.` part is reused.
 */
export function nowIso(): string {
  const now = Date.now();
  if (now !== clockMs) {
    clockMs = now;
    const ms = now % 1000;
    const second = now - ms;
    if (second !== secondMs || ms < 0) {
      const iso = new Date(now).toISOString();
      // Years outside 0000–9999 have a longer form: those are not split.
      if (iso.length !== 24 || ms < 0) {
        secondMs = Number.NaN;
        clockIso = iso;
        return iso;
      }
      secondMs = second;
      secondPrefix = iso.slice(0, 20);
    }
    clockIso = secondPrefix + (MS_TEXT[ms] as string);
  }
  return clockIso;
}
