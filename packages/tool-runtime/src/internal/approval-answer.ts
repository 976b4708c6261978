// Run-time reading of an approver's answer. The type says `'once' | 'always' | 'deny'`, but an
// approver written in JavaScript, or typed with a cast, can resolve with anything; only the two
// allow answers run a call.

/** The answer when it is exactly `'once'` or `'always'`; `undefined` for every other value. */
export function readApprovalAnswer(value: unknown): 'once' | 'always' | undefined {
  return value === 'once' || value === 'always' ? value : undefined;
}

/**
 * The answer when it names another decider than the person (`{ answer: 'once' | 'deny', by,
 * reason? }` with a non-empty `by`); `undefined` for every other value.
 */
export function readApprovalDecision(
  value: unknown,
): { answer: 'once' | 'deny'; by: string; reason?: string } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { answer, by, reason } = value as { answer?: unknown; by?: unknown; reason?: unknown };
  if (answer !== 'once' && answer !== 'deny') return undefined;
  if (typeof by !== 'string' || by.length === 0) return undefined;
  return typeof reason === 'string' ? { answer, by, reason } : { answer, by };
}

/** A short, printable description of an arbitrary answer for the `tool/approval` reason. */
export function describeAnswer(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol' || typeof value === 'bigint') return `a ${typeof value}`;
  if (typeof value === 'object' && value !== null)
    return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}
