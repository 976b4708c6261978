// Telling an outage of the PostgreSQL store (wait it out) from every other failure.

import { SchemaNotMigratedError, StoreUnavailableError } from '@spine/store-postgres';

/**
 * True when `error` (or its cause) is the store being unreachable: worth waiting out, never a
 * reason to fail a task or stop the worker. An unmigrated schema is not an outage.
 */
export function isOutage(error: unknown): boolean {
  for (let at = error, depth = 0; at && depth < 5; depth++) {
    if (at instanceof SchemaNotMigratedError) return false;
    if (at instanceof StoreUnavailableError) return true;
    at = (at as { cause?: unknown }).cause;
  }
  return false;
}
