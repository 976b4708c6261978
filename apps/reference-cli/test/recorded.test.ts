import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_SESSION_ID } from '../scripts/example-task.js';
import { APP_DIR, isolatedEnv, runCli, tempFolder } from './run-cli.js';

const EXAMPLES = join(APP_DIR, 'examples');

function copies(): { workspace: string; sessions: string } {
  const root = tempFolder('spine-recorded-');
  cpSync(join(EXAMPLES, 'workspace'), join(root, 'workspace'), { recursive: true });
  cpSync(join(EXAMPLES, 'sessions'), join(root, 'sessions'), { recursive: true });
  return { workspace: join(root, 'workspace'), sessions: join(root, 'sessions') };
}

describe('recorded sessions: demo, rerun, replay', { timeout: 180_000 }, () => {
  it('runs the demo with no key and no network', async () => {
    const { env } = isolatedEnv();
    const result = await runCli(['demo', '--json'], { env });
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout.trim().split('\n').at(-1)!);
    expect(summary.ok).toBe(true);
    expect(summary.rerun.toolResults).toEqual({ recorded: 4, rerun: 4, same: 4 });
    expect(summary.replay[EXAMPLE_SESSION_ID]).toEqual({ ok: true, requests: 5 });
  });

  it('prints replay commands only for a demo folder it keeps', async () => {
    const { env } = isolatedEnv();
    const removed = await runCli(['demo'], { env });
    expect(removed.code).toBe(0);
    expect(removed.stdout).not.toContain('spine replay');
    expect(removed.stdout).toContain('run spine demo --keep to keep its sessions');
    const kept = await runCli(['demo', '--keep'], { env });
    expect(kept.code).toBe(0);
    const root = kept.stdout.match(/kept (\S+)/)?.[1];
    expect(root).toBeDefined();
    try {
      const command = kept.stdout.match(/spine replay (\S+) --verify --session-dir (\S+)\)/);
      expect(command).not.toBeNull();
      expect(existsSync(join(command![2]!, `${command![1]}.jsonl`))).toBe(true);
    } finally {
      rmSync(root!, { recursive: true, force: true });
    }
  });

  it('reruns the recorded session against the current code and reports a difference with exit 5', async () => {
    const { env } = isolatedEnv();
    const same = copies();
    const ok = await runCli(
      ['rerun', EXAMPLE_SESSION_ID, '--session-dir', same.sessions, '--cwd', same.workspace],
      { env },
    );
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('tool results identical: 4/4');
    expect(readFileSync(join(same.workspace, 'src', 'add.js'), 'utf8')).toContain('a + b');

    const changed = copies();
    const test = join(changed.workspace, 'test.js');
    writeFileSync(test, readFileSync(test, 'utf8').replace('passed', 'succeeded'));
    const differs = await runCli(
      ['rerun', EXAMPLE_SESSION_ID, '--session-dir', changed.sessions, '--cwd', changed.workspace],
      { env },
    );
    expect(differs.code).toBe(5);
    expect(differs.stdout).toMatch(/differs: result 4 \(bash, content\)/);
    expect(differs.stdout).toContain('all 3 succeeded');
  });

  it('replays and verifies every request, prints request N, and exits 5 on a tampered log', async () => {
    const { env } = isolatedEnv();
    const { sessions } = copies();
    const verified = await runCli(
      ['replay', EXAMPLE_SESSION_ID, '--verify', '--session-dir', sessions],
      { env },
    );
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain('verified: all 5 requests');
    const second = await runCli(
      ['replay', EXAMPLE_SESSION_ID, '--request', '2', '--session-dir', sessions],
      { env },
    );
    const wire = JSON.parse(second.stdout);
    expect(wire.model).toBe('deepseek-v4-flash');
    expect(JSON.stringify(wire.messages)).toContain('3 of 3 failed');

    const file = join(sessions, `${EXAMPLE_SESSION_ID}.jsonl`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('3 of 3 failed', '0 of 3 failed'));
    const tampered = await runCli(
      ['replay', EXAMPLE_SESSION_ID, '--verify', '--session-dir', sessions],
      { env },
    );
    expect(tampered.code).toBe(5);
    expect(tampered.stdout).toMatch(/MISMATCH messages\[\d+\] \(event seq \d+\)/);
    const range = await runCli(
      ['replay', EXAMPLE_SESSION_ID, '--request', '99', '--session-dir', sessions],
      { env },
    );
    expect(range.code).toBe(2);
  });
});
