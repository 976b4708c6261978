// Titles beyond the REPL's first request: `spine run` records its task as a `session/title`
// event (and still reruns and replays), a fork carries its parent's title (`spine fork` and
// `/fork`), and `spine sessions --store` on PostgreSQL shows the latest recorded title.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { migratePostgresStore } from '@spine/store-postgres';
import { createScriptedModelServer } from '@spine/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../packages/store-postgres/test/server.js';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

interface Row {
  id: string;
  title: string;
  parent?: string;
}

function rows(stdout: string): Row[] {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Row);
}

function titleEvents(file: string): { seq: number; title: string; source: string }[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { seq: number; type: string; body: Record<string, string> })
    .filter((event) => event.type === 'session/title')
    .map((event) => ({
      seq: event.seq,
      title: event.body.title ?? '',
      source: event.body.source ?? '',
    }));
}

let pg: TestServer;

beforeAll(async () => {
  pg = await startTestServer();
  await migratePostgresStore({ connectionString: pg.url });
}, 120_000);

afterAll(async () => {
  await pg?.stop();
});

describe('titles of run, fork and store sessions', () => {
  it('spine run records its task as the title; a fork carries it; both rerun', async () => {
    const server = await createScriptedModelServer({
      replies: [{ text: 'Fixed.' }, { text: 'Fixed.' }, { text: 'Again.' }, { text: 'Again.' }],
    });
    const workspace = exampleWorkspace('spine-titles-run-');
    const { env, sessionDir } = isolatedEnv();
    try {
      const run = await runCli(['run', ...modelArgs(server.baseUrl), '  Fix the   build  '], {
        env,
        cwd: workspace,
      });
      expect(run.code, run.stderr).toBe(0);
      const [row] = rows((await runCli(['sessions', '--json'], { env })).stdout);
      expect(row?.title).toBe('Fix the build');
      const id = row!.id;
      expect(titleEvents(join(sessionDir, `${id}.jsonl`))).toEqual([
        { seq: expect.any(Number), title: 'Fix the build', source: 'auto' },
      ]);
      const replay = await runCli(['replay', id, '--verify'], { env, cwd: workspace });
      expect(replay.code, replay.stdout + replay.stderr).toBe(0);
      const rerun = await runCli(['rerun', id, '--cwd', workspace], { env, cwd: workspace });
      expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);

      // A fork at the end of the session carries the title, in its log and in the listing.
      const lastSeq = readFileSync(join(sessionDir, `${id}.jsonl`), 'utf8')
        .trim()
        .split('\n').length;
      const fork = await runCli(['fork', id, '--at', String(lastSeq)], { env });
      expect(fork.code, fork.stderr).toBe(0);
      const forkId = fork.stdout.trim();
      const forked = rows((await runCli(['sessions', '--json'], { env })).stdout).find(
        (entry) => entry.id === forkId,
      );
      expect(forked).toMatchObject({ title: 'Fix the build', parent: id });
      expect(titleEvents(join(sessionDir, `${forkId}.jsonl`)).map((t) => t.title)).toEqual([
        'Fix the build',
        'Fix the build',
      ]);
      const resumed = await runCli(['resume', forkId, ...modelArgs(server.baseUrl), 'again'], {
        env,
        cwd: workspace,
      });
      expect(resumed.code, resumed.stderr).toBe(0);
      const forkReplay = await runCli(['replay', forkId, '--verify'], { env, cwd: workspace });
      expect(forkReplay.code, forkReplay.stdout + forkReplay.stderr).toBe(0);
    } finally {
      await server.close();
    }
  }, 240_000);

  it('/fork in the REPL gives the fork the title', async () => {
    const server = await createScriptedModelServer({ replies: [{ text: 'One.' }] });
    const workspace = exampleWorkspace('spine-titles-fork-');
    const { env } = isolatedEnv();
    const terminal = new TmuxTerminal(spineCommand(BIN, env, modelArgs(server.baseUrl)), {
      cwd: workspace,
    });
    try {
      await terminal.waitFor(/›$/);
      terminal.type('Name this session please');
      await terminal.waitFor(/One\.[\s\S]*\n›$/);
      terminal.type('/fork');
      await terminal.waitFor(/forked \S+ at seq \d+ into \S+; now in \S+/);
      terminal.type('/quit');
      await terminal.waitFor(/EXITED:0/);
    } finally {
      terminal.close();
      await server.close();
    }
    const listed = rows((await runCli(['sessions', '--json'], { env })).stdout);
    expect(listed).toHaveLength(2);
    for (const entry of listed) expect(entry.title).toBe('Name this session please');
    expect(listed.filter((entry) => entry.parent !== undefined)).toHaveLength(1);
  }, 120_000);

  it('spine sessions --store shows the latest recorded title', async () => {
    const server = await createScriptedModelServer({
      replies: [{ text: 'Done.' }, { text: 'Done too.' }],
    });
    const workspace = exampleWorkspace('spine-titles-store-');
    const { env } = isolatedEnv();
    const store = ['--store', pg.url];
    try {
      const run = await runCli(['run', ...store, ...modelArgs(server.baseUrl), 'Tidy the docs'], {
        env,
        cwd: workspace,
      });
      expect(run.code, run.stderr).toBe(0);
      // A REPL session has no header title: only its session/title events name it.
      const repl = await runCli([...store, ...modelArgs(server.baseUrl)], {
        env,
        cwd: workspace,
        input: 'first request here\n/title Renamed in the store\n',
      });
      expect(repl.code, repl.stderr).toBe(0);
      const listed = await runCli(['sessions', ...store, '--json'], { env });
      expect(listed.code, listed.stderr).toBe(0);
      const titles = rows(listed.stdout)
        .map((entry) => entry.title)
        .sort();
      expect(titles).toEqual(['Renamed in the store', 'Tidy the docs']);
      const table = await runCli(['sessions', ...store], { env });
      expect(table.stdout).toContain('Renamed in the store');
    } finally {
      await server.close();
    }
  }, 240_000);
});
