// A process that used Node's global fetch before loading @spine/llm holds Node's bundled undici
// Agent as the global dispatcher; the clients must not dispatch through it (they did, and every
// request failed with NETWORK_ERROR "invalid onError method").
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const child = fileURLToPath(new URL('./global-fetch-child.ts', import.meta.url));

function run(mode: string): { status: number | null; out: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', child, mode], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

describe('a process whose global dispatcher is Node’s built-in one', () => {
  it('streams from both clients after a global fetch() ran first', () => {
    const result = run('fetch-first');
    expect(result.out).toContain('answer: one\nanswer: two\n');
    expect(result.status).toBe(0);
  }, 90_000);

  it('streams from both clients when nothing used fetch before', () => {
    const result = run('plain');
    expect(result.out).toContain('answer: one\nanswer: two\n');
    expect(result.status).toBe(0);
  }, 90_000);
});
