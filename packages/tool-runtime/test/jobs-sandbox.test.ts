import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createJobManager,
  createToolRuntime,
  createWorkspaceTools,
  detectSandbox,
  type JobManager,
  type SandboxBackend,
} from '../src/index.js';
import { makeTempDir, processesWith, runOne } from './helpers.js';

let base: { dir: string; cleanup: () => void };
let jobs: JobManager;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function runtime(manager: JobManager) {
  return createToolRuntime({
    cwd: base.dir,
    sandbox: 'workspace-write',
    tools: createWorkspaceTools({ cwd: base.dir, jobs: manager }),
    approval: 'never-ask',
  });
}

async function until<T>(probe: () => T | undefined, tries = 100): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await sleep(50);
  }
  throw new Error('condition not reached');
}

beforeAll(async () => {
  base = makeTempDir('spine-jobs-');
  expect(await detectSandbox()).toBeDefined();
});

afterEach(async () => {
  await jobs?.close();
});

afterAll(() => base.cleanup());

describe('background jobs in the bwrap sandbox', () => {
  it('serves HTTP on 127.0.0.1 from a job and a later command reaches it', async () => {
    jobs = createJobManager({ dir: join(base.dir, '.jobs-http') });
    const tools = runtime(jobs);
    const server = `exec node -e "require('http').createServer((q,s)=>s.end('pong '+q.url)).listen(8765,'127.0.0.1',()=>console.log('listening'))"`;
    const started = await runOne(tools, 'bash', { command: server, run_in_background: true });
    expect(started.isError).toBeFalsy();
    expect(started.content).toContain('Started background job job-1');
    expect(started.meta?.sandbox).toBe('bwrap');
    // Under load node may take longer than the first-output wait to listen: read until it does.
    let seen = started.content;
    for (let i = 0; i < 100 && !seen.includes('listening'); i++) {
      await sleep(100);
      seen += (await runOne(tools, 'job_output', { id: 'job-1' })).content;
    }
    expect(seen).toContain('listening');
    const poll = await runOne(tools, 'bash', {
      command: `exec 3<>/dev/tcp/127.0.0.1/8765 && printf 'GET /ping HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3 | tail -1`,
    });
    expect(poll.content).toContain('pong /ping');
    // The host's 127.0.0.1 is another namespace: the job's server is not there.
    const host = await fetch('http://127.0.0.1:8765/').then(
      () => 'reached',
      () => 'refused',
    );
    expect(host).toBe('refused');
    // No network beyond loopback in the shared namespace.
    const outside = await runOne(tools, 'bash', {
      command: 'exec 3<>/dev/tcp/93.184.215.14/80 && echo connected',
    });
    expect(outside.content).not.toContain('connected');
  });

  it('reads a watcher’s output over several steps, each byte once, in order', async () => {
    jobs = createJobManager({ dir: join(base.dir, '.jobs-watch'), firstOutputMs: 300 });
    const tools = runtime(jobs);
    const started = await runOne(tools, 'bash', {
      command: 'for i in 1 2 3 4 5 6; do echo tick-$i; sleep 0.4; done',
      run_in_background: true,
    });
    const reads: string[] = [started.content];
    while (jobs.info('job-1').state === 'running') {
      await sleep(500);
      reads.push((await runOne(tools, 'job_output', { id: 'job-1' })).content);
    }
    reads.push((await runOne(tools, 'job_output', { id: 'job-1' })).content);
    const ticks = reads.flatMap((text) => text.match(/tick-\d/g) ?? []);
    expect(ticks).toEqual(['tick-1', 'tick-2', 'tick-3', 'tick-4', 'tick-5', 'tick-6']);
    // Several reads saw new output while the job ran.
    expect(reads.filter((text) => /tick-\d/.test(text)).length).toBeGreaterThanOrEqual(3);
    expect(reads.at(-1)).toContain('exited with code 0');
    const again = await runOne(tools, 'job_output', { id: 'job-1', offset: 0, length: 14 });
    expect(again.content).toContain('tick-1\ntick-2');
  });

  it('reports a job that exits non-zero', async () => {
    jobs = createJobManager({ dir: join(base.dir, '.jobs-fail'), firstOutputMs: 100 });
    const tools = runtime(jobs);
    const events: string[] = [];
    jobs.onEvent((event) => events.push(`${event.type}:${event.job.exitCode ?? ''}`));
    const started = await runOne(tools, 'bash', {
      command: 'sleep 0.5; echo broken >&2; exit 3',
      run_in_background: true,
      timeoutMs: 1000,
    });
    expect(started.content).toContain('job-1');
    await until(() => (events.includes('exited:3') ? true : undefined));
    const read = await runOne(tools, 'job_output', { id: 'job-1' });
    expect(read.content).toContain('exited with code 3');
    expect(read.content).toContain('broken');
  });

  it('kills a job that forked and detached, with everything it started', async () => {
    jobs = createJobManager({ dir: join(base.dir, '.jobs-fork'), killGraceMs: 500 });
    const tools = runtime(jobs);
    const marker = `98${Math.floor(Math.random() * 1e5)}.5`;
    await runOne(tools, 'bash', {
      command: `(setsid nohup sleep ${marker} >/dev/null 2>&1 &); sleep ${marker}`,
      run_in_background: true,
    });
    await until(() => (processesWith(marker).length >= 2 ? true : undefined));
    const killed = await runOne(tools, 'job_kill', { id: 'job-1' });
    expect(killed.content).toContain('Stopped job-1 killed');
    await until(() => (processesWith(marker).length === 0 ? true : undefined));
    expect(processesWith(marker)).toEqual([]);
  });

  it('refuses a sixth job while five run, with a clear error', async () => {
    jobs = createJobManager({ dir: join(base.dir, '.jobs-limit'), firstOutputMs: 50 });
    const tools = runtime(jobs);
    for (let i = 1; i <= 5; i++) {
      const started = await runOne(tools, 'bash', { command: 'sleep 30', run_in_background: true });
      expect(started.content).toContain(`job-${i}`);
    }
    const sixth = await runOne(tools, 'bash', { command: 'sleep 30', run_in_background: true });
    expect(sixth.isError).toBe(true);
    expect(sixth.content).toMatch(/5 background jobs are already running .*job-5.*job_kill/);
    await runOne(tools, 'job_kill', { id: 'job-2' });
    const next = await runOne(tools, 'bash', { command: 'sleep 30', run_in_background: true });
    expect(next.content).toContain('job-6');
    const unknown = await runOne(tools, 'job_output', { id: 'job-99' });
    expect(unknown.isError).toBe(true);
    expect(unknown.content).toContain('No background job "job-99"');
  });

  it('keeps commands working, each in its own network namespace, when no shared one can be made', async () => {
    const detected = (await detectSandbox()) as SandboxBackend;
    const backend: SandboxBackend = {
      ...detected,
      createSharedNetwork: () => Promise.reject(new Error('nsenter missing')),
    };
    jobs = createJobManager({ dir: join(base.dir, '.jobs-fallback'), firstOutputMs: 200 });
    const tools = createToolRuntime({
      cwd: base.dir,
      sandbox: 'workspace-write',
      tools: createWorkspaceTools({ cwd: base.dir, jobs, sandboxBackend: backend }),
      approval: 'never-ask',
    });
    const started = await runOne(tools, 'bash', {
      command: 'echo up; sleep 5',
      run_in_background: true,
    });
    expect(started.content).toContain('Started background job job-1');
    expect(started.content).toContain('up');
    const later = await runOne(tools, 'bash', { command: 'echo still fine' });
    expect(later.isError).toBeFalsy();
    expect(later.content).toContain('still fine');
  });
});
