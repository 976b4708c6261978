import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createToolRuntime,
  createWorkspaceTools,
  PathRefusedError,
  resolveWorkspacePath,
  type ToolRuntime,
} from '../src/index.js';
import { makeTempDir, toolCall } from './helpers.js';

const SECRET = 'TOP-SECRET-OUTSIDE';
let base: { dir: string; cleanup: () => void };
let ws: string;
let outside: string;
let runtime: ToolRuntime;
let corpus: string[];
const EXCLUDE = ['.env', 'secrets'];

function snapshot(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: false })
    .map(String)
    .sort()
    .map((name) => {
      const path = join(dir, name);
      const stats = statSync(path);
      return `${name}:${stats.size}:${stats.mtimeMs}:${stats.isFile() ? readFileSync(path, 'utf8') : 'dir'}`;
    })
    .join('\n');
}

beforeAll(() => {
  base = makeTempDir('spine-hostile-');
  ws = join(base.dir, 'ws');
  outside = join(base.dir, 'outside');
  mkdirSync(join(ws, 'sub'), { recursive: true });
  mkdirSync(join(ws, 'secrets'));
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), SECRET);
  writeFileSync(join(ws, 'ok.txt'), 'fine\n');
  writeFileSync(join(ws, '.env'), 'TOKEN=1');
  writeFileSync(join(ws, 'secrets', 'key.txt'), 'key');
  symlinkSync('../outside', join(ws, 'link-out'));
  symlinkSync(join(outside, 'secret.txt'), join(ws, 'link-secret'));
  symlinkSync('loop2', join(ws, 'loop1'));
  symlinkSync('loop1', join(ws, 'loop2'));
  symlinkSync('/nonexistent-spine-target/file', join(ws, 'dangling'));
  symlinkSync('../outside/created-through-link.txt', join(ws, 'dangling-rel'));
  symlinkSync('/dev/null', join(ws, 'dev-null'));
  symlinkSync('../..', join(ws, 'sub', 'up'));
  execFileSync('mkfifo', [join(ws, 'fifo')]);
  const hasDevice = (() => {
    try {
      execFileSync('mknod', [join(ws, 'devzero'), 'c', '1', '5'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  corpus = [
    '../outside/secret.txt',
    '../../etc/passwd',
    '/etc/passwd',
    join(outside, 'secret.txt'),
    'a/../../outside/secret.txt',
    './../outside/secret.txt',
    'sub/../../outside/secret.txt',
    '..',
    '../',
    '/',
    '/tmp',
    `${ws}/../outside/secret.txt`,
    '//etc/passwd',
    '/proc/self/environ',
    '/proc/self/root/etc/passwd',
    '/dev/zero',
    '..%2foutside%2fsecret.txt',
    '%2e%2e/outside/secret.txt',
    '%2E%2E%2Foutside',
    'ok.txt%00.png',
    '..\\outside\\secret.txt',
    '~/.ssh/id_rsa',
    '~root/.bashrc',
    '\uFF0E\uFF0E/outside/secret.txt',
    '..\uFF0Foutside',
    'link-out/secret.txt',
    'link-out',
    'link-secret',
    'loop1',
    'loop1/x',
    'dangling',
    'dangling-rel',
    'fifo',
    'dev-null',
    'sub/up/outside/secret.txt',
    'sub/up',
    'sub/up/',
    'a'.repeat(300),
    'x/'.repeat(2100),
    'file\0.txt',
    '',
    '.env',
    'secrets/key.txt',
    'secrets',
    ...(hasDevice ? ['devzero'] : []),
  ];
  runtime = createToolRuntime({
    cwd: ws,
    tools: createWorkspaceTools({ cwd: ws, exclude: EXCLUDE }),
    approval: 'never-ask',
  });
});

afterAll(() => base.cleanup());

describe('hostile paths', () => {
  it('has a corpus of at least 40 hostile paths', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
  });

  it('resolveWorkspacePath refuses every one with a PathRefusedError that says why', async () => {
    for (const path of corpus) {
      const attempt = resolveWorkspacePath(ws, path, { exclude: EXCLUDE });
      await expect(attempt, JSON.stringify(path)).rejects.toBeInstanceOf(PathRefusedError);
      await expect(attempt).rejects.toThrow(
        /Path refused: .+ (is|climbs|contains|has|starts|looks|uses|matches|resolves|goes)/,
      );
    }
  });

  it('read, write, edit, list and grep refuse them all and touch nothing outside', async () => {
    const before = snapshot(outside);
    const calls = corpus.flatMap((path) => [
      toolCall('read', { path }),
      toolCall('write', { path, content: 'pwned' }),
      toolCall('edit', { path, edits: [{ oldText: 'TOP', newText: 'PWNED' }] }),
      toolCall('list', { path }),
      toolCall('grep', { pattern: 'SECRET', path }),
    ]);
    const results = await runtime.run(calls);
    expect(results).toHaveLength(calls.length);
    for (const [index, result] of results.entries()) {
      const label = `${calls[index]!.name} ${calls[index]!.arguments.slice(0, 80)}`;
      expect(result.isError, label).toBe(true);
      expect(result.content, label).toMatch(/^Path refused: /);
      expect(result.content, label).not.toContain(SECRET);
    }
    expect(snapshot(outside)).toBe(before);
    expect(() => statSync('/nonexistent-spine-target')).toThrow();
    expect(readFileSync(join(ws, '.env'), 'utf8')).toBe('TOKEN=1');
  });

  it('still serves ordinary paths, including .. that stays inside and absolute paths inside', async () => {
    const [relative, dotted, absolute] = await runtime.run([
      toolCall('read', { path: 'ok.txt' }),
      toolCall('read', { path: 'sub/../ok.txt' }),
      toolCall('read', { path: join(ws, 'ok.txt') }),
    ]);
    for (const result of [relative, dotted, absolute]) expect(result!.content).toContain('fine');
  });
});
