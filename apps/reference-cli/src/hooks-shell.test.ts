import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// Temporary folders made by these tests, removed when the file's tests are done.
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
function tempFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

// Shell hooks and their runners live in @spine/tool-runtime; the CLI configures them.
describe('shell and hook configuration', () => {
  it('reads shell.env, shell.unixSockets and protectedPaths from configuration and refuses bad names', async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const { loadConfig } = await import('@spine/harness');
    const root = tempFolder('spine-shell-config-');
    const home = join(root, 'home');
    const cwd = join(root, 'work');
    mkdirSync(home, { recursive: true });
    mkdirSync(join(cwd, '.spine'), { recursive: true });
    const env = { SPINE_CONFIG_HOME: home, HOME: root };
    expect(loadConfig({ cwd, env }).config.shell).toEqual({
      env: { inherit: 'core', set: {}, include: [], exclude: [] },
      unixSockets: 'none',
      allowCredentials: false,
      network: 'off',
    });
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        shell: {
          env: { inherit: 'none', include: ['NODE_*'], set: { CI: '1' } },
          unixSockets: 'all',
          network: { domains: ['example.com', '*.example.test', 'example.test:8443'] },
        },
        protectedPaths: ['.git/config', 'secrets/**'],
      }),
    );
    const { config } = loadConfig({ cwd, env });
    expect(config.shell.env).toEqual({
      inherit: 'none',
      set: { CI: '1' },
      include: ['NODE_*'],
      exclude: [],
    });
    expect(config.shell.unixSockets).toBe('all');
    expect(config.shell.network).toEqual({
      domains: ['example.com', '*.example.test', 'example.test:8443'],
    });
    expect(config.protectedPaths).toEqual(['.git/config', 'secrets/**']);
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ shell: { env: { include: ['A B'] } } }),
    );
    expect(() => loadConfig({ cwd, env })).toThrow(/shell\.env\.include/);
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ shell: { env: { inherit: 'some' } } }),
    );
    expect(() => loadConfig({ cwd, env })).toThrow(/shell\.env\.inherit/);
  });
});
