import { connectionOf, postgresStoreFor } from '@spine/harness';
import {
  describeConnection,
  POSTGRES_SCHEMA_VERSION,
  SchemaNotMigratedError,
} from '@spine/store-postgres';
import type { DoctorCheck } from '../commands/doctor.js';

/** `spine doctor` with a PostgreSQL store: reachable, schema migrated (never shows a password). */
export async function postgresStoreCheck(url: string): Promise<DoctorCheck> {
  const { connectionString, schema } = connectionOf(url);
  const where = `${describeConnection(connectionString)} schema ${schema ?? 'spine'}`;
  const store = postgresStoreFor(url);
  try {
    await store.list({ limit: 1 });
    return {
      area: 'sessions',
      name: 'postgres store',
      status: 'ok',
      detail: `${where}: reachable, schema version ${POSTGRES_SCHEMA_VERSION}`,
    };
  } catch (error) {
    const advice =
      error instanceof SchemaNotMigratedError
        ? ''
        : '; check the URL, PGPASSWORD and that the server runs';
    return {
      area: 'sessions',
      name: 'postgres store',
      status: 'fail',
      detail: `${where}: ${(error as Error).message}${advice}`,
    };
  } finally {
    await store.close();
  }
}
