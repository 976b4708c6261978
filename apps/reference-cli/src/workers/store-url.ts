// The store URL a worker command needs (`spine worker`, `submit`, `follow`, `migrate` …). Which
// store is in force (`--store`, `store.url`, SPINE_STORE_URL, the password moved to PGPASSWORD)
// is @spine/harness's storeUrlOf.

import { storeUrlOf, UsageError } from '@spine/harness';

/**
 * The store URL a command that only makes sense on PostgreSQL needs.
 *
 * @throws a {@link UsageError} when none is configured.
 */
export function requireStoreUrl(config: { store?: { url?: string } }, command: string): string {
  const url = storeUrlOf(config);
  if (!url) {
    throw new UsageError({
      message: `spine ${command} needs a PostgreSQL store: pass --store postgres://user@host/db, set store.url in configuration, or SPINE_STORE_URL (the password in PGPASSWORD)`,
    });
  }
  return url;
}
