// Profile files of every file type: only regular files are read, nothing blocks, and each file
// that cannot be used is reported alone (the other profiles of the directory still load).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InvalidProfileError } from './errors.js';
import { MAX_PROFILE_BYTES, readProfileText } from './profile-dir.js';
import { loadProfileDir } from './profile-file.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const IS_ROOT = process.getuid?.() === 0;
const profile = (name: string) =>
  `---\nname: ${name}\ndescription: ${name} profile\n---\nYou are ${name}.\n`;

let root = '';
let dir = '';
let outside = '';
let server: Server | undefined;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'spine-profile-dir-'));
  chmodSync(root, 0o755);
  dir = join(root, 'agents');
  outside = join(root, 'outside');
  mkdirSync(dir);
  mkdirSync(outside);
  writeFileSync(join(dir, 'a-good.md'), profile('good'));
  writeFileSync(join(dir, 'z-last.md'), profile('last'));
  execFileSync('mkfifo', [join(dir, 'fifo.md')]);
  mkdirSync(join(dir, 'folder.md'));
  writeFileSync(join(outside, 'linked.md'), profile('linked'));
  symlinkSync(join(outside, 'linked.md'), join(dir, 'link.md'));
  symlinkSync(join(outside, 'missing.md'), join(dir, 'dangling.md'));
  writeFileSync(join(dir, 'huge.md'), `${profile('huge')}${'x'.repeat(MAX_PROFILE_BYTES)}`);
  writeFileSync(join(dir, 'notes.txt'), 'not a profile');
  server = createServer();
  await new Promise<void>((resolve) => server?.listen(join(dir, 'socket.md'), resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

async function load(symlinks: 'follow' | 'refuse') {
  const errors: InvalidProfileError[] = [];
  const profiles = await loadProfileDir(dir, {
    symlinks,
    onInvalid: (error) => errors.push(error),
  });
  const reasons = Object.fromEntries(
    errors.map((error) => [error.path.slice(dir.length + 1), error.message]),
  );
  return { names: profiles.map((p) => p.name), reasons };
}

describe('loadProfileDir on every file type', () => {
  it('reads regular files, refuses project symlinks, and reports every other file alone', async () => {
    const { names, reasons } = await load('refuse');
    expect(names).toEqual(['good', 'last']);
    expect(Object.keys(reasons).sort()).toEqual([
      'dangling.md',
      'fifo.md',
      'folder.md',
      'huge.md',
      'link.md',
      'socket.md',
    ]);
    expect(reasons['fifo.md']).toContain('is a FIFO (named pipe), not a regular file');
    expect(reasons['folder.md']).toContain('is a directory, not a regular file');
    expect(reasons['socket.md']).toContain('is a socket, not a regular file');
    expect(reasons['link.md']).toContain('is a symbolic link');
    expect(reasons['dangling.md']).toContain('is a symbolic link');
    expect(reasons['huge.md']).toContain(`is larger than ${MAX_PROFILE_BYTES} bytes`);
  });

  it("follows symlinks in the user's own directory (a dangling one is reported alone)", async () => {
    const { names, reasons } = await load('follow');
    expect(names).toEqual(['good', 'linked', 'last']);
    expect(reasons['dangling.md']).toContain('disappeared while it was read');
    expect(reasons['link.md']).toBeUndefined();
  });

  it('refuses a project directory that is itself a symbolic link', async () => {
    const linked = join(root, 'linked-agents');
    symlinkSync(dir, linked);
    await expect(loadProfileDir(linked, { symlinks: 'refuse' })).rejects.toThrow(
      'the profile directory is a symbolic link',
    );
    expect((await loadProfileDir(linked, { onInvalid: () => {} })).length).toBe(3);
  });

  it('reads a character device only to refuse it', async () => {
    await expect(readProfileText('/dev/zero', 'follow')).rejects.toThrow(
      'is a device, not a regular file',
    );
  });
});

describe('an unreadable profile file', () => {
  let probe = '';
  beforeAll(async () => {
    // The reader bundled once, so an unprivileged process can run it from the repository.
    const folder = join(HERE, '..', '.spine-tmp');
    mkdirSync(folder, { recursive: true });
    probe = join(folder, `read-profile-${process.pid}.mjs`);
    writeFileSync(
      join(folder, `probe-${process.pid}.ts`),
      `import { readProfileText } from '../src/profile-dir.ts';\nreadProfileText(process.argv[2], 'refuse').then(() => console.log('read'), (e) => console.log(e.message));\n`,
    );
    await build({
      entryPoints: [join(folder, `probe-${process.pid}.ts`)],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: probe,
      packages: 'external',
      alias: { '@spine/protocol': join(HERE, '../../protocol/src/index.ts') },
      logLevel: 'error',
    });
  }, 60_000);
  afterAll(() => {
    const folder = join(HERE, '..', '.spine-tmp');
    rmSync(probe, { force: true });
    rmSync(join(folder, `probe-${process.pid}.ts`), { force: true });
  });

  it('is reported as permission denied (as uid 65534 when the tests run as root)', () => {
    const path = join(root, 'secret.md');
    writeFileSync(path, profile('secret'));
    chmodSync(path, 0o000);
    const command = IS_ROOT
      ? [
          'setpriv',
          ['--reuid', '65534', '--regid', '65534', '--clear-groups', process.execPath, probe, path],
        ]
      : [process.execPath, [probe, path]];
    const result = spawnSync(command[0] as string, command[1] as string[], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(
      `agent profile ${path}: file: cannot be read (permission denied)`,
    );
  });
});
