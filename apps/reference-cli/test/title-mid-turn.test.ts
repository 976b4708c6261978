// `/title` typed while a turn runs is recorded when the turn ends (between turns, where a rerun
// puts it again), so `spine rerun` and `spine replay --verify` still verify the session.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

describe('/title during a turn', () => {
  it('is queued to the turn end, and the session reruns and replays', async () => {
    const slow = 'A slow answer, streamed a few characters at a time so a person can type.';
    const server = await createScriptedModelServer({
      replies: [{ text: slow, chunkSize: 4, delayMs: 150 }, { text: 'Second.' }],
    });
    const workspace = exampleWorkspace('spine-title-mid-');
    const { env, sessionDir } = isolatedEnv();
    const terminal = new TmuxTerminal(spineCommand(BIN, env, modelArgs(server.baseUrl)), {
      cwd: workspace,
    });
    let id = '';
    try {
      await terminal.waitFor(/›$/);
      terminal.type('tell me slowly');
      await terminal.waitFor(/A slow/);
      terminal.type('/title Named mid turn');
      await terminal.waitFor(/the title is set when this turn ends/);
      const ended = await terminal.waitFor(/title set to Named mid turn/);
      // Set after the answer finished, not in the middle of it.
      expect(ended.indexOf('title set to Named mid turn')).toBeGreaterThan(
        ended.indexOf('can type.'),
      );
      terminal.type('and again');
      await terminal.waitFor(/Second\.[\s\S]*\n›$/);
      terminal.type('/quit');
      await terminal.waitFor(/EXITED:0/);
    } finally {
      terminal.close();
      await server.close();
    }
    const listed = await runCli(['sessions', '--json'], { env });
    const row = JSON.parse(listed.stdout.trim().split('\n')[0]!) as { id: string; title: string };
    id = row.id;
    expect(row.title).toBe('Named mid turn');
    // The log: the person's title sits between the first turn's end and the second's start.
    const types = readFileSync(join(sessionDir, `${id}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; body: { title?: string } })
      .filter((event) => ['turn/start', 'turn/end', 'session/title'].includes(event.type))
      .map((event) => (event.type === 'session/title' ? `title:${event.body.title}` : event.type));
    expect(types).toEqual([
      'title:tell me slowly',
      'turn/start',
      'turn/end',
      'title:Named mid turn',
      'turn/start',
      'turn/end',
    ]);
    const replay = await runCli(['replay', id, '--verify'], { env, cwd: workspace });
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
    const rerun = await runCli(['rerun', id, '--cwd', workspace], { env, cwd: workspace });
    expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
  }, 240_000);
});
