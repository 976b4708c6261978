// The hostile-command corpus against real bubblewrap, as the current user (root in CI) and as an
// unprivileged user (uid 65534 through setpriv), in workspace-write and read-only. Every case must
// fail, each for its stated reason, and the host must be byte-identical afterwards.
import { execFileSync, spawn } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShellEnv } from '../src/index.js';
import { processesWith } from './helpers.js';
import { HOSTILE_CASES, type HostileResult, type HostileTargets } from './hostile-corpus.js';
import { runHostileCorpus } from './hostile-runner.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const IS_ROOT = process.getuid?.() === 0;
const UNPRIVILEGED = 65534;
// The --api-key-env variable: a name no credential filter would guess.
const API_KEY_ENV = 'SPINE_E2E_LOGIN';
const CANARY_NAMES = [
  API_KEY_ENV,
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'OPENAI_KEY',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'DEEPSEEK_API_KEY',
  'GH_PAT',
  'GITHUB_TOKEN',
  'NPM_TOKEN',
  'DATABASE_URL',
  'REDIS_URL',
  'PGPASSWORD',
  'SLACK_WEBHOOK_SECRET',
  'DOCKER_AUTH_CONFIG',
  'SSH_AUTH_SOCK',
];
const SNAPSHOT_FILES = [
  '/proc/sys/kernel/printk_ratelimit_burst',
  '/proc/sys/kernel/printk_ratelimit',
  '/proc/sys/kernel/core_pattern',
  '/proc/sys/kernel/randomize_va_space',
  '/proc/sys/kernel/unprivileged_bpf_disabled',
  '/proc/sys/kernel/perf_event_paranoid',
  '/proc/sys/kernel/kptr_restrict',
  '/proc/sys/fs/file-max',
  '/proc/sys/kernel/panic',
  '/proc/sys/kernel/hostname',
  '/proc/sys/vm/overcommit_memory',
  '/proc/sys/fs/protected_symlinks',
  '/proc/sys/net/ipv4/ip_forward',
  '/sys/kernel/uevent_helper',
  '/sys/kernel/mm/ksm/run',
  '/etc/passwd',
  '/etc/hostname',
];

const servers: Server[] = [];
let udp: UdpSocket;
const hits: string[] = [];
let root: string;
let targets: HostileTargets;
let runSocketDir: string;

function listenUnix(path: string, label: string): Promise<void> {
  const server = createServer((socket) => {
    hits.push(label);
    socket.destroy();
  });
  servers.push(server);
  return new Promise((done) => server.listen(path, () => done()));
}

function snapshot(): Record<string, string> {
  const state: Record<string, string> = {};
  for (const file of SNAPSHOT_FILES) {
    try {
      state[file] = readFileSync(file, 'utf8');
    } catch (error) {
      state[file] = `unreadable: ${(error as NodeJS.ErrnoException).code}`;
    }
  }
  // Other test files create temporary directories meanwhile: shared directories are compared on
  // the names these commands would create.
  const ours = (name: string): boolean =>
    name.includes(targets.marker) || /pwned|spine-hostile$|via-/.test(name);
  state[`ls ${targets.outside}`] = readdirSync(targets.outside).sort().join('\n');
  for (const dir of ['/var/tmp', '/dev/shm', tmpdir(), '/tmp'])
    state[`ls ${dir}`] = readdirSync(dir).filter(ours).sort().join('\n');
  return state;
}

function workspaceFor(owner?: number): string {
  const dir = mkdtempSync(join(root, 'spine-hostile-ws-'));
  execFileSync('git', ['init', '-q', dir]);
  if (owner !== undefined) execFileSync('chown', ['-R', `${owner}:${owner}`, dir]);
  return dir;
}

function environment(): NodeJS.ProcessEnv {
  const host: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: '/root', LANG: 'C.UTF-8' };
  for (const name of CANARY_NAMES) host[name] = `canary-${name}`;
  // The CLI's policy: inherit everything non-credential, never the key variable.
  return createShellEnv(host, { inherit: 'all', neverPass: [API_KEY_ENV] });
}

function runAsUnprivileged(workspace: string): Promise<{ uid: number; results: HostileResult[] }> {
  // tsx needs a writable cache directory of the user's own.
  const ownTmp = mkdtempSync(join(root, 'unprivileged-tmp-'));
  chownSync(ownTmp, UNPRIVILEGED, UNPRIVILEGED);
  const runner = join(HERE, 'hostile-runner.ts');
  const input = JSON.stringify({
    workspace,
    targets,
    env: { ...environment(), HOME: '/nonexistent' },
  });
  const child = spawn(
    'setpriv',
    ['--reuid', String(UNPRIVILEGED), '--regid', String(UNPRIVILEGED), '--clear-groups', '--',
      process.execPath, '--import', 'tsx', runner, input],
    { cwd: resolve(HERE, '../../..'), env: { PATH: process.env.PATH, HOME: '/nonexistent', TMPDIR: ownTmp } },
  ); // biome-ignore format: argv reads better on two lines
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((done, fail) => {
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').at(-1) ?? '';
      try {
        done(JSON.parse(last));
      } catch {
        fail(
          new Error(
            `unprivileged runner exited ${code}: ${stderr.slice(-2000)} ${stdout.slice(-2000)}`,
          ),
        );
      }
    });
  });
}

function expectAllFailed(results: HostileResult[]): void {
  const cases = HOSTILE_CASES.length + HOSTILE_CASES.filter((c) => !c.writeModeOnly).length;
  expect(results).toHaveLength(cases);
  const escaped = results.filter((result) => result.escaped);
  expect(escaped, JSON.stringify(escaped, null, 2)).toEqual([]);
  const unexplained = results.filter((result) => !result.expectedReason);
  expect(unexplained, JSON.stringify(unexplained, null, 2)).toEqual([]);
}

let before: Record<string, string>;

beforeAll(async () => {
  if (!existsSync('/usr/bin/bwrap'))
    throw new Error('bubblewrap is required: apt-get install bubblewrap');
  root = mkdtempSync(join(tmpdir(), 'spine-hostile-'));
  chmodSync(root, 0o755);
  const outside = mkdtempSync('/var/tmp/spine-hostile-outside-');
  chmodSync(outside, 0o777);
  const runBase = IS_ROOT ? '/run' : (process.env.XDG_RUNTIME_DIR ?? '');
  if (!runBase || !existsSync(runBase)) throw new Error('no /run directory to put a socket in');
  runSocketDir = mkdtempSync(join(runBase, 'spine-hostile-'));
  chmodSync(runSocketDir, 0o755);
  const marker = `spinehostile${process.pid}x${Date.now()}`;
  targets = {
    outside,
    sockets: { outside: join(outside, 'agent.sock'), tmp: join(root, 'tmp.sock'), run: join(runSocketDir, 'docker.sock') },
    abstract: `spine-hostile-${process.pid}`,
    tmux: join(outside, 'tmux.sock'),
    tcpPort: 0,
    udpPort: 0,
    marker,
  }; // biome-ignore format: fixture table
  await listenUnix(targets.sockets.outside, 'outside');
  await listenUnix(targets.sockets.tmp, 'tmp');
  await listenUnix(targets.sockets.run, 'run');
  await listenUnix(`\0${targets.abstract}`, 'abstract');
  for (const path of Object.values(targets.sockets)) chmodSync(path, 0o777);
  const tcp = createServer((socket) => {
    hits.push('tcp');
    socket.destroy();
  });
  servers.push(tcp);
  await new Promise<void>((done) => tcp.listen(0, '127.0.0.1', () => done()));
  targets.tcpPort = (tcp.address() as { port: number }).port;
  udp = createSocket('udp4');
  udp.on('message', () => hits.push('udp'));
  await new Promise<void>((done) => udp.bind(0, '127.0.0.1', () => done()));
  targets.udpPort = udp.address().port;
  execFileSync('tmux', ['-S', targets.tmux, 'new-session', '-d', '-s', 'hostile', 'sleep 600']);
  chmodSync(targets.tmux, 0o777);
  before = snapshot();
}, 60_000);

afterAll(async () => {
  try {
    execFileSync('tmux', ['-S', targets.tmux, 'kill-server']);
  } catch {
    // already gone
  }
  for (const server of servers) await new Promise((done) => server.close(done));
  udp?.close();
  for (const dir of [root, targets?.outside, runSocketDir])
    if (dir) rmSync(dir, { recursive: true, force: true });
});

async function expectHostUntouched(): Promise<void> {
  for (let i = 0; i < 50 && processesWith(targets.marker).length > 0; i++)
    await new Promise((done) => setTimeout(done, 100));
  expect(processesWith(targets.marker), 'background processes outlived their command').toEqual([]);
  expect(hits, 'a host listener was reached').toEqual([]);
  expect(snapshot()).toEqual(before);
  expect(existsSync('/tmp/pwned')).toBe(false);
}

describe('hostile-command corpus', () => {
  it('has at least 60 cases across every category of the issue', () => {
    expect(HOSTILE_CASES.length).toBeGreaterThanOrEqual(60);
    expect(new Set(HOSTILE_CASES.map((c) => c.category))).toEqual(
      new Set([
        'kernel settings',
        '/proc and /sys',
        'Unix sockets',
        'namespaces and privileges',
        'network',
        'writes outside',
        'protected paths',
        'background survival',
        'environment secrets',
      ]),
    );
  });

  it(`every case fails, with its reason, as the current user (uid ${process.getuid?.()})`, async () => {
    const results = await runHostileCorpus({
      workspace: workspaceFor(),
      targets,
      env: environment(),
    });
    expectAllFailed(results);
    await expectHostUntouched();
  }, 300_000);

  it('every case fails, with its reason, as an unprivileged user (uid 65534 via setpriv)', async () => {
    if (!IS_ROOT) {
      // Not root: the run above already was the unprivileged one; setpriv cannot switch users.
      expect(process.getuid?.()).not.toBe(0);
      return;
    }
    const { uid, results } = await runAsUnprivileged(workspaceFor(UNPRIVILEGED));
    expect(uid).toBe(UNPRIVILEGED);
    expectAllFailed(results);
    await expectHostUntouched();
  }, 300_000);
});
