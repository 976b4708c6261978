// Which PostgreSQL store the agent's sessions live in: `--store <url>`, `store.url` in configuration, or
// SPINE_STORE_URL. A password in the URL is moved to PGPASSWORD (where pg reads it) before the
// configuration is built, so `spine config --effective`, errors and logs never contain it.

import { createPostgresStore, type PostgresStore } from '@spine/store-postgres';
import { UsageError } from './errors.js';

/** The store URL in force, if any: the configured `store.url`, else SPINE_STORE_URL. */
export function storeUrlOf(
  config: { store?: { url?: string } },
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const url = config.store?.url ?? env.SPINE_STORE_URL;
  return url ? withoutPassword(url, env) : undefined;
}

/**
 * `url` without its password, which goes to `env.PGPASSWORD` (unless that is already set).
 *
 * @throws a {@link UsageError} for a URL that is not postgres:// or postgresql://.
 */
export function withoutPassword(url: string, env: NodeJS.ProcessEnv = process.env): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError({
      message: 'The store URL is not a URL; pass --store postgres://user@host:5432/db',
    });
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new UsageError({
      message: `The store URL must start with postgres:// (got ${parsed.protocol}//); the JSONL store is the default without --store`,
    });
  }
  if (parsed.password) {
    env.PGPASSWORD ??= decodeURIComponent(parsed.password);
    parsed.password = '';
  }
  return parsed.toString();
}

/** One store (one connection pool) per URL in this process. */
const stores = new Map<string, PostgresStore>();

/**
 * The PostgreSQL store for `url`, made once per process (schema from `?schema=` or
 * SPINE_STORE_SCHEMA, default spine). `leaseMs` applies when this call makes it.
 */
export function postgresStoreFor(url: string, options: { leaseMs?: number } = {}): PostgresStore {
  let store = stores.get(url);
  if (!store) {
    store = createPostgresStore({ ...connectionOf(url), ...options });
    stores.set(url, store);
  }
  return store;
}

/** The connection of a PostgreSQL store, as `createPostgresStore` takes it. */
export interface PostgresConnection {
  /** The URL without the `schema` and bound parameters. */
  connectionString: string;
  /** The schema the store's tables live in, when the URL or SPINE_STORE_SCHEMA names one. */
  schema?: string;
  /** `?connectTimeoutMs=`: how long opening a connection may take. */
  connectTimeoutMs?: number;
  /** `?statementTimeoutMs=`: how long one statement may run. */
  statementTimeoutMs?: number;
  /** `?writeAheadTimeoutMs=`: how long a write-ahead append may block. */
  writeAheadTimeoutMs?: number;
  /** `?reconnectMs=`: how long asynchronous appends keep reconnecting. */
  reconnectMs?: number;
}

/** The bounds a store URL may set (ms), named as `createPostgresStore` options. */
const BOUND_PARAMETERS = [
  'connectTimeoutMs',
  'statementTimeoutMs',
  'writeAheadTimeoutMs',
  'reconnectMs',
] as const;

/**
 * pg's connection options for a store URL: the `schema` parameter becomes the schema option, and
 * `connectTimeoutMs`, `statementTimeoutMs`, `writeAheadTimeoutMs` and `reconnectMs` (positive
 * integers, milliseconds) the store's bounds.
 *
 * @throws a {@link UsageError} for a bound that is not a positive integer.
 */
export function connectionOf(url: string): PostgresConnection {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? process.env.SPINE_STORE_SCHEMA;
  parsed.searchParams.delete('schema');
  const bounds: Partial<Record<(typeof BOUND_PARAMETERS)[number], number>> = {};
  for (const name of BOUND_PARAMETERS) {
    const text = parsed.searchParams.get(name);
    if (text === null) continue;
    parsed.searchParams.delete(name);
    const value = Number(text);
    if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(value) || value <= 0)
      throw new UsageError({
        message: `The store URL's ${name} must be a positive whole number of milliseconds (got ${JSON.stringify(text.slice(0, 40))})`,
      });
    bounds[name] = value;
  }
  return { connectionString: parsed.toString(), ...(schema ? { schema } : {}), ...bounds };
}
