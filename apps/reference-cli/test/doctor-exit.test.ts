import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli } from './run-cli.js';

// Exit 1 means a bug and nothing else; a failed doctor check has its own code, 7.
describe('spine doctor exit codes', { timeout: 180_000 }, () => {
  it('exits 7 when a check fails (no provider key), and says which check', async () => {
    const { env } = isolatedEnv();
    const result = await runCli(['doctor', '--json'], { env });
    const checks = JSON.parse(result.stdout) as { area: string; name: string; status: string }[];
    const failed = checks.filter((check) => check.status === 'fail');
    expect(failed.length).toBeGreaterThan(0);
    expect(result.code).toBe(7);
  });

  it('lists code 7 in spine --help', async () => {
    const { env } = isolatedEnv();
    const result = await runCli(['--help'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('7 spine doctor found a failed check');
  });
});
