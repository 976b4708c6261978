// A workspace without `.spine` has none after Spine ran a sandboxed command in it: bwrap creates
// the read-only mount point, and the process removes it (still empty) when it exits.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const HERE = dirname(fileURLToPath(import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'spine-mount-points-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function run(workspace: string): { during: boolean } {
  const output = execFileSync(
    process.execPath,
    ['--import', 'tsx', join(HERE, 'mount-point-runner.ts'), workspace],
    { cwd: resolve(HERE, '../../..'), encoding: 'utf8' },
  );
  return JSON.parse(output.trim().split('\n').at(-1) as string);
}

describe('sandbox mount points', () => {
  it('leaves no .spine in a workspace that had none, and keeps one that had content', () => {
    const bare = join(root, 'bare');
    mkdirSync(bare);
    expect(run(bare).during).toBe(true); // the mount point did appear while Spine ran
    expect(readFileSync(join(bare, 'out.txt'), 'utf8')).toBe('ran\n');
    expect(existsSync(join(bare, '.spine'))).toBe(false);

    const configured = join(root, 'configured');
    mkdirSync(join(configured, '.spine'), { recursive: true });
    writeFileSync(join(configured, '.spine', 'config.json'), '{}');
    run(configured);
    expect(readFileSync(join(configured, '.spine', 'config.json'), 'utf8')).toBe('{}');
  });
});
