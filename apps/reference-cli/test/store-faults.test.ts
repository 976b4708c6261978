// The real CLI against a PostgreSQL server this file owns and kills: a role without privileges
// gets exit 2 with the missing privilege named (`spine store migrate`, `spine sessions`,
// `spine run`); `spine worker` waits out a SIGKILL + restart of the server while idle and while a
// task runs its tool, and goes on taking tasks submitted meanwhile.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import {
  createPostgresStore,
  createPostgresTaskQueue,
  migratePostgresStore,
  type PostgresTaskQueue,
} from '@spine/store-postgres';
import { createScriptedModelServer, type ScriptedModelServer } from '@spine/test-utils';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FaultServer,
  startFaultServer,
} from '../../../packages/store-postgres/test/fault-server.js';
import { BIN, isolatedEnv, modelArgs, runCli, tempFolder } from './run-cli.js';

let server: FaultServer;
let model: ScriptedModelServer;
let queue: PostgresTaskQueue;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!existsSync('/usr/bin/bwrap'))
    throw new Error('bubblewrap is required: apt-get install bubblewrap');
  server = await startFaultServer();
  await migratePostgresStore({ connectionString: server.url });
  queue = createPostgresTaskQueue({
    connectionString: server.url,
    connectTimeoutMs: 1000,
    statementTimeoutMs: 2000,
  });
  model = await createScriptedModelServer({
    replies: (request) => {
      const messages = request.body.messages as Array<{ role: string; content?: unknown }>;
      const last = messages.at(-1);
      if (last?.role === 'user' && JSON.stringify(request.body).includes('slow')) {
        const command = 'sleep 3 && echo done > marker.txt';
        return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command }) }] };
      }
      return { text: 'Done.' };
    },
  });
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await queue?.close().catch(() => {});
  await model?.close();
  await server?.stop();
});

async function asAdmin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function until(what: string, probe: () => Promise<boolean>, context = () => '') {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const ok = await probe().catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${context()}`);
    await delay(200);
  }
}

describe('permission errors in the CLI', () => {
  it('exit 2 naming the missing privilege in store migrate, sessions and run', async () => {
    const name = `spine_cli_${process.pid}`;
    await asAdmin(`CREATE ROLE ${name} LOGIN PASSWORD 'pw'`);
    const url = new URL(server.url);
    url.username = name;
    url.password = 'pw';
    const store = ['--store', url.toString()];
    const { env } = isolatedEnv();
    const migrated = await runCli(['store', 'migrate', ...store], { env });
    const sessions = await runCli(['sessions', ...store], { env });
    const run = await runCli(['run', 'hello', ...store, ...modelArgs(model.baseUrl)], {
      env,
      cwd: tempFolder('spine-perm-'),
    });
    for (const [result, object] of [
      [migrated, /permission denied for (database|schema)/],
      [sessions, /permission denied for schema spine/],
      [run, /permission denied for schema spine/],
    ] as const) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(object);
      expect(result.stderr).not.toMatch(/internal error|Cannot reach|at .*\.js:\d+/);
      expect(result.stderr).not.toContain(':pw@');
    }
  }, 120_000);
});

describe('spine verify --store', () => {
  it('checks the per-row chain: exit 0 when intact, 5 naming an edited or deleted row, 2 for an unknown id', async () => {
    const store = createPostgresStore({ connectionString: server.url });
    const writer = await store.create({
      seq: 1,
      type: 'session/header',
      at: new Date().toISOString(),
      body: { sessionId: 'chained', formatVersion: 1, createdAt: new Date().toISOString() },
    });
    for (let seq = 2; seq <= 6; seq++) {
      writer.append([{ seq, type: 'note/cli', at: new Date().toISOString(), body: { seq } }]);
    }
    await writer.close();
    await store.close();
    const { env } = isolatedEnv();
    const verify = (id: string) => runCli(['verify', id, '--store', server.url], { env });
    const intact = await verify('chained');
    expect(intact.code, intact.stderr).toBe(0);
    expect(intact.stdout).toMatch(/6 row\(s\)/);
    await asAdmin(
      `UPDATE spine.spine_events SET data = replace(data, '"seq":4}', '"seq":4,"x":0}') WHERE session_id = 'chained' AND seq = 4`,
    );
    const edited = await verify('chained');
    expect(edited.code).toBe(5);
    expect(edited.stdout).toMatch(/row seq 4: .*edited/);
    await asAdmin(`DELETE FROM spine.spine_events WHERE session_id = 'chained' AND seq = 2`);
    const deleted = await runCli(['verify', 'chained', '--store', server.url, '--json'], { env });
    expect(deleted.code).toBe(5);
    expect(JSON.parse(deleted.stdout)).toMatchObject({
      ok: false,
      problem: { seq: 2, kind: 'deleted' },
    });
    const unknown = await verify('no-such-session');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('not found');
  }, 120_000);
});

describe('spine worker through a database restart', () => {
  it('waits out a restart while idle and while busy, then takes the tasks submitted meanwhile', async () => {
    const { env } = isolatedEnv();
    let out = '';
    const worker = spawn(
      process.execPath,
      [
        BIN,
        'worker',
        '--store',
        server.url,
        '--name',
        'survivor',
        '--lease-ms',
        '20000',
        '--poll-ms',
        '200',
        '--approval',
        'never-ask',
        ...modelArgs(model.baseUrl),
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(worker);
    worker.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    worker.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    const log = () => out;
    await until('the worker to be ready', async () => out.includes('ready'), log);

    // Idle: the server dies and comes back; the worker must still be there afterwards.
    await server.kill();
    await until('the worker to notice', async () => out.includes('unavailable'), log);
    await server.start();
    const quick = await queue.submit({ prompt: 'quick', workspace: tempFolder('spine-idle-') });
    await until('the quick task', async () => (await queue.get(quick.id))?.status === 'done', log);
    expect(worker.exitCode).toBeNull();

    // Busy: the server dies while the task's tool runs (its tool/started is committed).
    const workspace = tempFolder('spine-busy-');
    const slow = await queue.submit({ prompt: 'slow', workspace });
    await until(
      'the slow task to start its tool',
      async () => {
        const client = new pg.Client({ connectionString: server.url });
        await client.connect();
        try {
          const { rows } = await client.query(
            `SELECT 1 FROM spine.spine_events WHERE session_id = $1 AND data LIKE '%"tool/started"%'`,
            [slow.sessionId],
          );
          return rows.length > 0;
        } finally {
          await client.end();
        }
      },
      log,
    );
    await server.kill();
    await delay(500);
    await server.start();
    const after = await queue.submit({ prompt: 'after', workspace: tempFolder('spine-after-') });
    await until(
      'the slow task and the one submitted after',
      async () =>
        (await queue.get(slow.id))?.status === 'done' &&
        (await queue.get(after.id))?.status === 'done',
      log,
    );
    expect(existsSync(`${workspace}/marker.txt`)).toBe(true);
    expect(worker.exitCode).toBeNull();
    worker.kill('SIGTERM');
    await new Promise((resolve) => worker.on('exit', resolve));
    expect(worker.exitCode).toBe(0);
  }, 400_000);
});
