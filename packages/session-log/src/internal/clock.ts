let clockMs = 0;
let clockIso = '';

/** `new Date().toISOString()`, computed at most once per millisecond (appends are hot). */
export function nowIso(): string {
  const now = Date.now();
  if (now !== clockMs) {
    clockMs = now;
    clockIso = new Date(now).toISOString();
  }
  return clockIso;
}
