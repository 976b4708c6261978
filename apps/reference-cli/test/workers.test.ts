// Many agents on one PostgreSQL store, end to end through the real CLI: `spine store migrate`,
// `spine submit`, four `spine worker` processes running 20 tasks against a loopback model server
// with the real bash tool, one worker SIGKILLed mid-tool, `spine sessions`, `spine replay
// --verify` and `spine show --follow` on the store.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEvent } from '@spine/protocol';
import {
  createPostgresStore,
  createPostgresTaskQueue,
  type PostgresStore,
  type PostgresTaskQueue,
} from '@spine/store-postgres';
import { createScriptedModelServer, type ScriptedModelServer } from '@spine/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../packages/store-postgres/test/server.js';
import { BIN, isolatedEnv, modelArgs, runCli, tempFolder } from './run-cli.js';

const TASKS = 20;
const WORKERS = 4;
// The tool every task runs first: long enough (8 s) to be killed in the middle on a loaded machine.
const WORK =
  'echo start >> marker.txt && sleep 8 && echo end >> marker.txt; printenv PGPASSWORD || true';

let pg: TestServer;
let model: ScriptedModelServer;
let store: PostgresStore;
let queue: PostgresTaskQueue;
const workers: ChildProcess[] = [];
const password = (): string => new URL(pg.url).password;

beforeAll(async () => {
  if (!existsSync('/usr/bin/bwrap'))
    throw new Error('bubblewrap is required: apt-get install bubblewrap');
  pg = await startTestServer();
  model = await createScriptedModelServer({
    replies: (request) => {
      const messages = request.body.messages as Array<{ role: string; content?: unknown }>;
      const last = messages.at(-1);
      if (last?.role === 'tool' && String(last.content).startsWith('outcome unknown')) {
        return {
          toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'cat marker.txt' }) }],
        };
      }
      // A call the killed worker never started, or that verifiably changed nothing, is run now.
      const nothingHappened = /^not started|no workspace file changed/.test(String(last?.content));
      if (last?.role === 'tool' && nothingHappened) {
        return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: WORK }) }] };
      }
      if (last?.role === 'tool') return { text: 'Task finished.' };
      return { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: WORK }) }] };
    },
  });
});

afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await queue?.close();
  await store?.close();
  await model?.close();
  await pg?.stop();
});

function startWorker(
  env: NodeJS.ProcessEnv,
  name: string,
): { child: ChildProcess; out: () => string } {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'worker',
      '--store',
      pg.url,
      '--name',
      name,
      '--concurrency',
      '2',
      '--lease-ms',
      '3000',
      '--poll-ms',
      '200',
      '--grace-ms',
      '1000',
      '--approval',
      'never-ask',
      '--json',
      ...modelArgs(model.baseUrl),
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  workers.push(child);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  return { child, out: () => out };
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 150_000,
  context: () => string = () => '',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${context()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function eventsOf(id: string): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  for await (const event of store.readRange(id, { fromSeq: 1 })) events.push(event);
  return events;
}

describe('spine workers on a PostgreSQL store', { timeout: 300_000 }, () => {
  it('runs 20 tasks on 4 workers, survives a SIGKILL mid-tool, and every session replays', async () => {
    const { env } = isolatedEnv();
    const before = await runCli(['sessions', '--store', pg.url], { env });
    expect(before.code).not.toBe(0);
    expect(before.stderr).toContain('spine store migrate');
    expect(before.stderr + before.stdout).not.toContain(password());

    const migrated = await runCli(['store', 'migrate', '--store', pg.url], { env });
    expect(migrated.stderr).toBe('');
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toMatch(/version 0 → 4/);
    expect(migrated.stdout).not.toContain(password());
    const again = await runCli(['store', 'migrate', '--store', pg.url], { env });
    expect(again.stdout).toMatch(/is current \(version 4\)/);

    store = createPostgresStore({ connectionString: pg.url });
    queue = createPostgresTaskQueue({ connectionString: pg.url });
    const root = tempFolder('spine-workers-');
    const workspaces: string[] = [];
    for (let n = 0; n < TASKS; n++) {
      const workspace = join(root, `w${n}`);
      mkdirSync(workspace);
      workspaces.push(workspace);
    }
    const submitted = await runCli(
      ['submit', 'task 0', '--store', pg.url, '--workspace', workspaces[0]!, '--json'],
      { env },
    );
    expect(submitted.code).toBe(0);
    expect(JSON.parse(submitted.stdout)).toMatchObject({ status: 'queued' });
    for (let n = 1; n < TASKS; n++) {
      await queue.submit(
        { prompt: `task ${n}`, workspace: workspaces[n]! },
        { sessionId: `s-task-${n}` },
      );
    }

    const started = Array.from({ length: WORKERS }, (_, n) => startWorker(env, `w${n}`));
    // Kill w0 once one of its tasks is inside the 8-second tool.
    const victim = await until(
      'a task of w0 to start its tool',
      async () => {
        const running = (await queue.list()).filter(
          (task) => task.worker === 'w0' && task.status === 'running',
        );
        for (const task of running) {
          if (!(await store.exists(task.sessionId))) continue;
          const events = await eventsOf(task.sessionId);
          const count = (type: string) => events.filter((event) => event.type === type).length;
          // Inside the tool: started, its side effect under way, not yet reported.
          const marker = join(task.spec.workspace, 'marker.txt');
          if (count('tool/started') > count('tool/result') && existsSync(marker)) return task;
        }
        return undefined;
      },
      150_000,
      () => started.map((worker) => worker.out()).join('\n---\n'),
    );
    started[0]!.child.kill('SIGKILL');

    const tasks = await until(
      'every task to finish',
      async () => {
        const all = await queue.list();
        return all.length === TASKS &&
          all.every((task) => task.status === 'done' || task.status === 'failed')
          ? all
          : undefined;
      },
      150_000,
      () => started.map((worker) => worker.out()).join('\n---\n'),
    );
    expect(tasks.filter((task) => task.status !== 'done')).toEqual([]);
    const taken = await queue.get(victim.id);
    expect(taken?.attempts).toBeGreaterThanOrEqual(2);
    expect(taken?.worker).not.toBe('w0');

    for (const task of tasks) {
      const n = Number(task.spec.prompt.split(' ')[1]);
      const events = await eventsOf(task.sessionId);
      const story = `${task.id} (${task.spec.prompt}, attempts ${task.attempts}):\n${events
        .filter(
          (event) => !['request/context', 'prompt/system', 'tools/defined'].includes(event.type),
        )
        .map((event) => `${event.seq} ${event.type} ${JSON.stringify(event.body).slice(0, 160)}`)
        .join('\n')}`;
      const markerPath = join(workspaces[n]!, 'marker.txt');
      const marker = existsSync(markerPath) ? readFileSync(markerPath, 'utf8') : '';
      // The side effect ran exactly once: nothing re-ran it silently.
      expect(marker.match(/start/g), story).toHaveLength(1);
      expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
      expect(JSON.stringify(events)).not.toContain(password());
      const results = events.filter((event) => event.type === 'tool/result');
      // Crash recovery's answer: "outcome unknown" or, with workspace checkpoints, "verified …".
      const recovered = results.filter((event) =>
        /^(outcome unknown|verified after the process stopped)/.test(
          String((event.body as { content?: unknown }).content),
        ),
      );
      if (task.id === victim.id) {
        expect(recovered, story).toHaveLength(1);
        expect(events.some((event) => event.type === 'lease/takeover')).toBe(true);
      }
      expect(events.filter((event) => event.type === 'turn/end').at(-1)?.body).toMatchObject({
        reason: 'completed',
      });
    }

    const listed = await runCli(['sessions', '--store', pg.url, '--json'], { env });
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { status: string });
    expect(rows).toHaveLength(TASKS);
    expect(rows.every((row) => row.status === 'done')).toBe(true);

    for (let i = 0; i < tasks.length; i += 4) {
      const replays = await Promise.all(
        tasks
          .slice(i, i + 4)
          .map((task) =>
            runCli(['replay', task.sessionId, '--verify', '--store', pg.url], { env }),
          ),
      );
      for (const replay of replays) expect(replay.stderr + replay.stdout).toMatch(/./);
      expect(replays.map((replay) => replay.code)).toEqual(replays.map(() => 0));
    }

    for (const worker of started.slice(1)) worker.child.kill('SIGTERM');
    const codes = await Promise.all(
      started.slice(1).map((worker) => new Promise((resolve) => worker.child.on('exit', resolve))),
    );
    expect(codes).toEqual([0, 0, 0]);
  });
});
