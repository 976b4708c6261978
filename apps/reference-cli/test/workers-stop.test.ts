// A worker stopped with SIGTERM releases its task (the turn ends as aborted in the log); the next
// worker continues the same session and finishes it, while `spine show --follow` on the store
// prints every event of it in order as it commits.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { SessionEvent } from '@spine/protocol';
import {
  createPostgresTaskQueue,
  migratePostgresStore,
  type PostgresTaskQueue,
} from '@spine/store-postgres';
import { createScriptedModelServer, type ScriptedModelServer } from '@spine/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../packages/store-postgres/test/server.js';
import { BIN, isolatedEnv, modelArgs, runCli, tempFolder } from './run-cli.js';

let pg: TestServer;
let model: ScriptedModelServer;
let queue: PostgresTaskQueue;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!existsSync('/usr/bin/bwrap'))
    throw new Error('bubblewrap is required: apt-get install bubblewrap');
  pg = await startTestServer();
  await migratePostgresStore({ connectionString: pg.url });
  queue = createPostgresTaskQueue({ connectionString: pg.url });
  model = await createScriptedModelServer({
    replies: (request) => {
      const messages = request.body.messages as Array<{ role: string; content?: unknown }>;
      const last = messages.at(-1);
      if (last?.role === 'user' && String(last.content).includes('previous worker')) {
        return { text: 'Checked the workspace; the task is finished.' };
      }
      if (last?.role === 'user') {
        return {
          toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'sleep 60' }) }],
        };
      }
      return { text: 'Done.' };
    },
  });
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await queue?.close();
  await model?.close();
  await pg?.stop();
});

function spine(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; out: () => string } {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  return { child, out: () => out };
}

const exited = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.on('exit', (code) => resolve(code));
  });

async function until(
  what: string,
  probe: () => Promise<boolean> | boolean,
  context = () => '',
): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${context()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('stopping a worker', { timeout: 300_000 }, () => {
  it('releases its task on SIGTERM; the next worker finishes the same session while a follower prints it', async () => {
    const { env } = isolatedEnv();
    const workspace = tempFolder('spine-stop-');
    const task = await queue.submit({ prompt: 'a long task', workspace }, { sessionId: 's-stop' });
    const workerArgs = [
      'worker',
      '--store',
      pg.url,
      '--grace-ms',
      '500',
      '--poll-ms',
      '200',
      '--approval',
      'never-ask',
      ...modelArgs(model.baseUrl),
    ];
    const first = spine([...workerArgs, '--name', 'first'], env);
    await until(
      'the first worker to start the tool',
      async () => {
        const current = await queue.get(task.id);
        return current?.status === 'running' && model.requests.length >= 1;
      },
      first.out,
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const follower = spine(['show', 's-stop', '--follow', '--json', '--store', pg.url], env);
    first.child.kill('SIGTERM');
    expect(await exited(first.child)).toBe(0);
    expect(first.out()).toMatch(/released/);
    expect(await queue.get(task.id)).toMatchObject({ status: 'queued', attempts: 1 });

    const second = spine([...workerArgs, '--name', 'second'], env);
    await until(
      'the task to be done',
      async () => (await queue.get(task.id))?.status === 'done',
      second.out,
    );
    expect(await queue.get(task.id)).toMatchObject({
      status: 'done',
      attempts: 2,
      worker: 'second',
    });
    await until(
      'the follower to print the last turn/end',
      () => follower.out().includes('"reason":"completed"'),
      follower.out,
    );
    follower.child.kill('SIGTERM');
    expect(await exited(follower.child)).toBe(0);
    const events = follower
      .out()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as SessionEvent);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const ends = events
      .filter((event) => event.type === 'turn/end')
      .map((event) => (event.body as { reason: string }).reason);
    expect(ends).toEqual(['aborted', 'completed']);
    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);

    const doctor = await runCli(
      ['doctor', '--json', '--store', pg.url, ...modelArgs(model.baseUrl)],
      {
        env,
      },
    );
    const checks = JSON.parse(doctor.stdout) as Array<{
      name: string;
      status: string;
      detail: string;
    }>;
    const check = checks.find((entry) => entry.name === 'postgres store');
    expect(check).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/reachable, schema version 4$/),
    });
    expect(doctor.stdout + doctor.stderr).not.toContain(new URL(pg.url).password);
  });
});
