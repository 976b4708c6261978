import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// Temp folders this file makes, removed when it ends.
const created: string[] = [];
function track(dir: string): string {
  created.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const root = fileURLToPath(new URL('../../..', import.meta.url));

describe("the README's example", () => {
  it('runs alone, remembers a fact with provenance and renders it for the next session', () => {
    const dir = track(mkdtempSync(join(tmpdir(), 'spine-memory-readme-')));
    const run = spawnSync('npx', ['tsx', 'packages/memory/examples/memory-alone.ts', dir], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(
      'Remembered in project memory (.spine/memory.md): "Tests run with npm test".',
    );
    expect(run.stdout).toContain('# Memory from earlier sessions');
    expect(run.stdout).toContain(`## ${join(dir, '.spine', 'memory.md')} (project memory)`);
    expect(readFileSync(join(dir, '.spine', 'memory.md'), 'utf8')).toMatch(
      /- Tests run with npm test <!-- spine: session session-1, \d{4}-\d{2}-\d{2} -->/,
    );
  }, 120_000);
});
