import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
  it('is examples/harness-alone.ts, unchanged', () => {
    const example = readFileSync(join(root, 'packages/harness/examples/harness-alone.ts'), 'utf8');
    const readme = readFileSync(join(root, 'packages/harness/README.md'), 'utf8');
    const program = example.slice(example.indexOf('import '));
    expect(program.length).toBeGreaterThan(500);
    expect(readme).toContain(`\`\`\`ts\n${program}\`\`\``);
  });

  it('runs the agent alone against a loopback model: it reads the file, answers and records the session', () => {
    const dir = track(mkdtempSync(join(tmpdir(), 'spine-harness-readme-')));
    const env = { ...process.env };
    delete env.OPENAI_API_KEY;
    delete env.SPINE_MODEL;
    delete env.SPINE_SESSION_DIR;
    const run = spawnSync('npx', ['tsx', 'packages/harness/examples/harness-alone.ts', dir], {
      cwd: root,
      env,
      encoding: 'utf8',
      timeout: 180_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('completed in 2 steps: The build command is `npm run build`.');
    expect(run.stdout).toContain('read -> 1\tBuild with `npm run build`.');
    expect(run.stdout).toMatch(/turns: 1, input tokens: [1-9]\d*/);
    const id = /session: (\S+)/.exec(run.stdout)?.[1];
    expect(id).toBeDefined();
    // The session log and the session index are in the configured session folder.
    expect(readdirSync(join(dir, 'sessions'))).toContain(`${id}.jsonl`);
    expect(existsSync(join(dir, 'config-home'))).toBe(false);
  }, 180_000);
});
