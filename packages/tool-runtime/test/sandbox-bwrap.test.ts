import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bwrapArguments,
  createToolRuntime,
  createWorkspaceTools,
  detectSandbox,
} from '../src/index.js';
import { makeTempDir, processesWith, runOne, runRecorded, toolCall } from './helpers.js';

let base: { dir: string; cleanup: () => void };
let server: Server;
let port: number;
let hits = 0;

function runtimeFor(
  sandbox: 'read-only' | 'workspace-write' | 'danger-full-access',
  approve = false,
) {
  const ws = base.dir;
  return createToolRuntime({
    cwd: ws,
    sandbox,
    tools: createWorkspaceTools({ cwd: ws }),
    approval: approve ? 'ask' : 'never-ask',
  });
}

async function waitUntilGone(marker: string): Promise<number[]> {
  for (let i = 0; i < 40; i++) {
    const left = processesWith(marker);
    if (left.length === 0) return left;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return processesWith(marker);
}

const unique = (): string =>
  `${Math.floor(Math.random() * 1e6) + 2000}.${Math.floor(Math.random() * 9) + 1}`;
const tcp = (): string =>
  `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && head -c 200 <&3`;

beforeAll(async () => {
  base = makeTempDir('spine-sandbox-');
  server = createServer((_request, response) => {
    hits++;
    response.end('reachable');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  base.cleanup();
});

describe('bash under bubblewrap', () => {
  it('detects bubblewrap and names it in every result', async () => {
    expect((await detectSandbox())?.info.name).toBe('bwrap');
    const result = await runOne(runtimeFor('workspace-write'), 'bash', { command: 'echo hello' });
    expect(result.content).toBe('hello\n');
    expect(result.meta).toMatchObject({
      sandbox: 'bwrap',
      sandboxMode: 'workspace-write',
      exitCode: 0,
    });
    expect(runtimeFor('workspace-write').sandboxBackend().name).toBe('bwrap');
  });

  it('builds the isolation flags: die with parent, new session, every namespace unshared, no network', () => {
    const args = bwrapArguments({
      command: 'true',
      cwd: '/w',
      workspace: '/w',
      mode: 'workspace-write',
    });
    expect(args).toEqual(
      expect.arrayContaining(['--die-with-parent', '--new-session', '--unshare-all', '--tmpfs']),
    );
    expect(args).not.toContain('--share-net');
    expect(
      bwrapArguments({
        command: 'true',
        cwd: '/w',
        workspace: '/w',
        mode: 'read-only',
        network: true,
      }),
    ).toContain('--share-net');
  });

  it('workspace-write: writes land in the workspace; writes elsewhere fail and /tmp is private', async () => {
    const other = makeTempDir('spine-outside-');
    try {
      const marker = `spine-private-${unique()}`;
      const command = `echo in > inside.txt; echo out > ${other.dir}/pwned.txt; touch /etc/spine-pwned; echo tmp > /tmp/${marker}; cat /tmp/${marker}; true`;
      const result = await runOne(runtimeFor('workspace-write'), 'bash', { command });
      expect(readFileSync(join(base.dir, 'inside.txt'), 'utf8')).toBe('in\n');
      expect(existsSync(join(other.dir, 'pwned.txt'))).toBe(false);
      expect(existsSync('/etc/spine-pwned')).toBe(false);
      expect(existsSync(`/tmp/${marker}`)).toBe(false);
      expect(result.content).toMatch(/Read-only file system/);
      expect(result.content).toContain('tmp\n');
    } finally {
      other.cleanup();
    }
  });

  it('read-only: even the workspace cannot be written', async () => {
    const result = await runOne(runtimeFor('read-only'), 'bash', {
      command: 'touch ro-attempt.txt',
    });
    expect(result.isError).toBe(true);
    expect(result.meta?.exitCode).not.toBe(0);
    expect(existsSync(join(base.dir, 'ro-attempt.txt'))).toBe(false);
    expect(result.content).toMatch(
      /the read-only sandbox \(bwrap\) may have blocked this: nothing is writable/,
    );
    expect(result.content).toMatch(/escalation and a justification/);
  });

  it('has no network unless granted; danger-full-access reaches it', async () => {
    const before = hits;
    const blocked = await runOne(runtimeFor('workspace-write'), 'bash', { command: tcp() });
    expect(blocked.isError).toBe(true);
    expect(hits).toBe(before);
    const open = await runOne(runtimeFor('danger-full-access'), 'bash', { command: tcp() });
    expect(open.content).toContain('reachable');
    expect(open.meta?.sandbox).toBe('none');
    expect(hits).toBe(before + 1);
  });

  it('grants network only through approval of an escalation request', async () => {
    const runtime = runtimeFor('workspace-write', true);
    const before = hits;
    const call = toolCall('bash', {
      command: tcp(),
      escalation: { justification: 'fetch the test page', permissions: { network: true } },
    });
    const denied = await runtime.run([call], { approve: async () => 'deny' });
    expect(denied[0]!.outcome).toBe('denied');
    const [unanswered] = await runtime.run([call]);
    expect(unanswered!.outcome).toBe('denied');
    expect(unanswered!.content).toMatch(/nobody can be asked/);
    const asked: string[] = [];
    const [allowed] = await runtime.run([call], {
      approve: async (request) => {
        asked.push(request.escalation?.justification ?? '');
        return 'once';
      },
    });
    expect(asked).toEqual(['fetch the test page']);
    expect(allowed!.content).toContain('reachable');
    expect(hits).toBe(before + 1);
  });

  it('kills backgrounded and setsid children when the command times out', async () => {
    const marker = unique();
    const command = `setsid sleep ${marker}1 & nohup sleep ${marker}2 >/dev/null 2>&1 & (sleep ${marker}3 &) ; sleep ${marker}4`;
    const started = Date.now();
    const result = await runOne(runtimeFor('workspace-write'), 'bash', { command, timeoutMs: 400 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/timed out after 400 ms/);
    expect(await waitUntilGone(`sleep ${marker}`)).toEqual([]);
  });

  it('kills the whole process group when the run is aborted', async () => {
    for (const mode of ['workspace-write', 'danger-full-access'] as const) {
      const marker = unique();
      const controller = new AbortController();
      const pending = runOne(
        runtimeFor(mode),
        'bash',
        { command: `sleep ${marker}1 & sleep ${marker}2 & wait` },
        controller.signal,
      );
      for (let i = 0; i < 100 && processesWith(`sleep ${marker}`).length < 2; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(processesWith(`sleep ${marker}1`).length).toBeGreaterThan(0);
      controller.abort();
      const result = await pending;
      expect(result.outcome).toBe('aborted');
      expect(await waitUntilGone(`sleep ${marker}`), mode).toEqual([]);
    }
  });

  it('streams output as progress events and reports the exit code', async () => {
    const { results, events } = await runRecorded(runtimeFor('workspace-write'), [
      toolCall('bash', { command: 'echo one; echo two >&2; exit 3' }),
    ]);
    expect(results[0]!.meta?.exitCode).toBe(3);
    expect(results[0]!.content).toContain('[exit code 3]');
    expect(events.some((event) => event.type === 'progress')).toBe(true);
  });
});

describe('pre-started sandboxes', () => {
  it('give every command its own fresh sandbox: private /tmp and background processes do not carry over', async () => {
    const runtime = runtimeFor('workspace-write');
    const marker = unique();
    const first = await runOne(runtime, 'bash', {
      command: `echo one > /tmp/carry; (sleep ${marker}1 &) ; echo started`,
    });
    expect(first.content).toBe('started\n');
    for (let i = 0; i < 3; i++) {
      const next = await runOne(runtime, 'bash', {
        command: 'cat /tmp/carry 2>&1 || echo fresh; pwd',
        workdir: '.',
      });
      expect(next.content).toContain('fresh');
      expect(next.content).toContain(base.dir);
    }
    expect(await waitUntilGone(`sleep ${marker}`)).toEqual([]);
  });

  it('runs commands with newlines, quotes and a working directory through the launcher', async () => {
    const runtime = runtimeFor('workspace-write');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(base.dir, 'sub dir'), { recursive: true });
    const result = await runOne(runtime, 'bash', {
      command: 'printf "%s\\n" "a b" \'c"d\'\npwd',
      workdir: 'sub dir',
    });
    expect(result.content).toBe(`a b\nc"d\n${join(base.dir, 'sub dir')}\n`);
  });

  it('close() stops the parked spare', async () => {
    const { createBwrapSandbox } = await import('../src/index.js');
    const backend = createBwrapSandbox();
    const own = makeTempDir('spine-close-');
    const ws = own.dir;
    const runtime = createToolRuntime({
      cwd: ws,
      tools: createWorkspaceTools({ cwd: ws }),
      approval: 'never-ask',
      sandboxBackend: backend,
    });
    const parked = () =>
      processesWith('IFS= read -r -d').filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(ws);
        } catch {
          return false;
        }
      });
    await runOne(runtime, 'bash', { command: 'true' });
    for (let i = 0; i < 100 && parked().length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(parked().length).toBeGreaterThan(0);
    backend.close?.();
    for (let i = 0; i < 100 && parked().length > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(parked()).toEqual([]);
    own.cleanup();
  });
});

describe('pre-started sandbox limits', () => {
  it('keeps at most four configurations parked and none for granted network access', async () => {
    const { createBwrapSandbox } = await import('../src/index.js');
    const backend = createBwrapSandbox();
    const dirs = Array.from({ length: 6 }, () => makeTempDir('spine-cap-'));
    try {
      for (const { dir } of dirs) {
        const runtime = createToolRuntime({
          cwd: dir,
          tools: createWorkspaceTools({ cwd: dir }),
          approval: 'never-ask',
          sandboxBackend: backend,
        });
        await runOne(runtime, 'bash', { command: 'true' });
        await new Promise((resolve) => setImmediate(resolve));
      }
      const parkedIn = (dir: string) =>
        processesWith('IFS= read -r -d').filter((pid) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
          } catch {
            return false;
          }
        }).length > 0;
      for (let i = 0; i < 100 && dirs.filter(({ dir }) => parkedIn(dir)).length > 4; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(dirs.filter(({ dir }) => parkedIn(dir)).length).toBeLessThanOrEqual(4);
    } finally {
      backend.close?.();
      for (const dir of dirs) dir.cleanup();
    }
  });
});

describe('bash without an OS sandbox', () => {
  it('refuses read-only and workspace-write commands and says how to fix it; never runs them', async () => {
    const ws = base.dir;
    for (const sandbox of ['read-only', 'workspace-write'] as const) {
      const runtime = createToolRuntime({
        cwd: ws,
        sandbox,
        sandboxBackend: null,
        approval: 'never-ask',
        tools: createWorkspaceTools({ cwd: ws }),
      });
      expect(runtime.sandboxBackend().name).toBe('none');
      const result = await runOne(runtime, 'bash', { command: 'touch unsandboxed-ran.txt' });
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/No OS sandbox is available.*bubblewrap.*danger-full-access/s);
      expect(existsSync(join(ws, 'unsandboxed-ran.txt'))).toBe(false);
    }
  });

  it('runs danger-full-access commands and records backend none', async () => {
    const ws = base.dir;
    writeFileSync(join(ws, 'marker.txt'), 'x');
    const runtime = createToolRuntime({
      cwd: ws,
      sandbox: 'danger-full-access',
      sandboxBackend: null,
      approval: 'never-ask',
      tools: createWorkspaceTools({ cwd: ws }),
    });
    const result = await runOne(runtime, 'bash', { command: 'cat marker.txt' });
    expect(result.content).toBe('x');
    expect(result.meta?.sandbox).toBe('none');
  });
});
