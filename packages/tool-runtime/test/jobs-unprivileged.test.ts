// Background jobs as an unprivileged user (uid 65534 through setpriv when run as root): the shared
// loopback-only network namespace is joined through the holder's own user namespace there.
import { spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const HERE = dirname(fileURLToPath(import.meta.url));
const UNPRIVILEGED = 65534;
const root = mkdtempSync(join(tmpdir(), 'spine-jobs-unprivileged-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function runRunner(): Promise<Record<string, unknown>> {
  const workspace = mkdtempSync(join(root, 'ws-'));
  const ownTmp = mkdtempSync(join(root, 'tmp-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot)
    for (const dir of [root, workspace, ownTmp]) chownSync(dir, UNPRIVILEGED, UNPRIVILEGED);
  const runner = [
    process.execPath,
    '--import',
    'tsx',
    join(HERE, 'jobs-runner.ts'),
    workspace,
    join(ownTmp, 'jobs'),
  ];
  const argv = asRoot
    ? ['setpriv', '--reuid', String(UNPRIVILEGED), '--regid', String(UNPRIVILEGED), '--clear-groups', '--', ...runner]
    : runner; // biome-ignore format: argv reads better on one line
  const child = spawn(argv[0] as string, argv.slice(1), {
    cwd: resolve(HERE, '../../..'),
    env: { PATH: process.env.PATH, HOME: '/nonexistent', TMPDIR: ownTmp },
  });
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
      try {
        done(JSON.parse(stdout.trim().split('\n').at(-1) ?? ''));
      } catch {
        fail(new Error(`runner exited ${code}: ${stderr.slice(-2000)} ${stdout.slice(-2000)}`));
      }
    });
  });
}

describe('background jobs as an unprivileged user', () => {
  it('serves on 127.0.0.1 from a job, answers a later command, and is killed', async () => {
    const result = await runRunner();
    expect(result.uid).not.toBe(0);
    expect(result.started).toContain('Started background job job-1');
    expect(result.seen).toContain('listening');
    expect(result.poll).toMatch(/^pong \d+/);
    expect(result.killed).toContain('Stopped job-1 killed');
  }, 60_000);
});
