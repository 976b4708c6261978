import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleSessionEvents } from './fixtures.js';
import { isolatedEnv, runCli, writeSessionFile } from './run-cli.js';

function withSession(): { env: NodeJS.ProcessEnv; sessionDir: string; id: string } {
  const setup = isolatedEnv();
  mkdirSync(setup.sessionDir, { recursive: true });
  const id = '20261130-090000-abcdef';
  writeSessionFile(setup.sessionDir, id, sampleSessionEvents(id));
  return { ...setup, id };
}

describe('session commands', { timeout: 180_000 }, () => {
  it('lists sessions with title, time, size and model, and as JSON', async () => {
    const { env, id } = withSession();
    const text = await runCli(['sessions'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(id);
    expect(text.stdout).toContain('fix the adder');
    expect(text.stdout).toContain('deepseek/deepseek-v4-flash');
    const here = await runCli(['sessions', '--here', '--cwd', '/tmp'], { env });
    expect(here.stdout).toContain('No sessions');
    const json = await runCli(['sessions', '--json'], { env });
    expect(JSON.parse(json.stdout.trim())).toMatchObject({ id, title: 'fix the adder' });
  });

  it('shows a readable transcript, the raw events, and NDJSON events', async () => {
    const { env, id, sessionDir } = withSession();
    const transcript = await runCli(['show', id], { env });
    expect(transcript.code).toBe(0);
    expect(transcript.stdout).toContain('you › fix the adder');
    expect(transcript.stdout).toContain('→ read path=src/add.js');
    expect(transcript.stdout).toContain('spine › The adder subtracts');
    expect(transcript.stdout).toContain('cost $0.0015');
    const ndjson = await runCli(['show', id, '--events', '--json', '--session-dir', sessionDir], {
      env: { ...env, SPINE_SESSION_DIR: '' },
    });
    const lines = ndjson.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('exports Markdown and JSON', async () => {
    const { env, id } = withSession();
    const md = await runCli(['export', id, '--format', 'md'], { env });
    expect(md.stdout).toContain('# fix the adder');
    expect(md.stdout).toContain('Tool call `read`');
    const out = join(env.HOME!, 'export.json');
    const json = await runCli(['export', id, '--format', 'json', '-o', out], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).events).toHaveLength(8);
    const bad = await runCli(['export', id, '--format', 'pdf'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--format expects md, json or html');
  });

  it('forks a session at a seq and refuses a seq past the end', async () => {
    const { env, id } = withSession();
    const fork = await runCli(['fork', id, '--at', '6', '--json'], { env });
    expect(fork.code).toBe(0);
    const child = JSON.parse(fork.stdout);
    expect(child.header.parent).toEqual({ sessionId: id, atSeq: 6 });
    const shown = await runCli(['show', child.id, '--events', '--json'], { env });
    // The 6 shared events, then the parent's title, carried into the fork.
    const events = shown.stdout.trim().split('\n');
    expect(events).toHaveLength(7);
    expect(JSON.parse(events[6]!)).toMatchObject({
      seq: 7,
      type: 'session/title',
      body: { title: 'fix the adder', source: 'auto' },
    });
    const bad = await runCli(['fork', id, '--at', '99'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('past the end');
  });

  it('names the unknown session and exits 2', async () => {
    const { env } = withSession();
    for (const args of [
      ['show', 'nope'],
      ['export', 'nope'],
      ['fork', 'nope', '--at', '1'],
    ]) {
      const result = await runCli(args, { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('No session "nope"');
    }
  });
});
