import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli } from './run-cli.js';

const stub = fileURLToPath(
  new URL('../../../packages/lsp-tools/test/servers/rustup-stub.mjs', import.meta.url),
);

describe('spine doctor and language servers', { timeout: 180_000 }, () => {
  it('shows a server stub that exits 1 as unavailable, with its real error and the install hint', async () => {
    const { env, root } = isolatedEnv();
    const bin = join(root, 'bin');
    mkdirSync(bin);
    // rustup installs a proxy named rust-analyzer that fails until the component is added.
    copyFileSync(stub, join(bin, 'rust-analyzer'));
    chmodSync(join(bin, 'rust-analyzer'), 0o755);
    env.PATH = `${bin}:${env.PATH}`;
    const result = await runCli(['doctor', '--json'], { env });
    const checks = JSON.parse(result.stdout) as {
      area: string;
      name: string;
      status: string;
      detail: string;
    }[];
    const rust = checks.find((check) => check.area === 'lsp' && check.name === 'rust');
    expect(rust).toMatchObject({ status: 'warn' });
    expect(rust?.detail).toContain("Unknown binary 'rust-analyzer'");
    expect(rust?.detail).toContain('rustup component add rust-analyzer');
    expect(rust?.detail).not.toContain('0x55d0c0ffee');
    const typescript = checks.find((check) => check.area === 'lsp' && check.name === 'typescript');
    expect(typescript).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/ 5\.\d+\.\d+ \(/),
    });
  });
});
