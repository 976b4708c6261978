import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createScriptedModelServer,
  type ReceivedRequest,
  type ScriptedReply,
} from '@spine/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

/** The conversation a request belongs to: the `[[marker]]` of its first marked user message. */
function markerOf(request: ReceivedRequest): string {
  for (const message of (request.body?.messages ?? []) as { role: string; content?: unknown }[]) {
    const found =
      message.role === 'user' && typeof message.content === 'string'
        ? /\[\[([a-z]+)\]\]/.exec(message.content)
        : null;
    if (found) return found[1] as string;
  }
  return 'parent';
}
const stepOf = (request: ReceivedRequest): number =>
  ((request.body?.messages ?? []) as { role: string }[]).filter((m) => m.role === 'assistant')
    .length;
const task = (id: string, profile: string, marker: string) => ({
  id,
  name: 'task',
  arguments: JSON.stringify({
    description: `look ${marker}`,
    prompt: `[[${marker}]] where is add defined?`,
    profile,
  }),
});
const SCRIPTS: Record<string, ScriptedReply[]> = {
  parent: [
    { toolCalls: [task('call_1', 'explore', 'one'), task('call_2', 'finder', 'two')] },
    { text: 'Both subagents found it.' },
  ],
  one: [
    {
      toolCalls: [
        { id: 'g1', name: 'grep', arguments: JSON.stringify({ pattern: 'function add' }) },
      ],
    },
    { text: 'add is defined in src/add.js:1.' },
  ],
  two: [{ text: 'src/add.js:1 defines add.' }],
};

const servers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

describe('spine with subagents', { timeout: 180_000 }, () => {
  it('delegates through the task tool; show, sessions, replay --verify and rerun cover the tree', async () => {
    const server = await createScriptedModelServer({
      replies: (request) =>
        SCRIPTS[markerOf(request)]?.[stepOf(request)] ?? {
          error: { status: 400, body: '{"error":{"message":"unscripted"}}' },
        },
    });
    servers.push(server);
    const { env, sessionDir } = isolatedEnv();
    const workspace = exampleWorkspace('spine-sub-cli-');
    // A project profile in Claude Code's layout, and an invalid one the CLI reports and skips.
    mkdirSync(join(workspace, '.spine', 'agents'), { recursive: true });
    writeFileSync(
      join(workspace, '.spine', 'agents', 'finder.md'),
      '---\nname: finder\ndescription: Finds definitions\ntools: Read, Grep, Glob\nsandbox: read-only\nmodel: openai-compatible/deepseek-v4-pro\n---\nYou find definitions and answer with file:line.\n',
    );
    writeFileSync(
      join(workspace, '.spine', 'agents', 'broken.md'),
      '---\nname: broken\n---\nno description\n',
    );

    const run = await runCli(
      [
        'run',
        ...modelArgs(server.baseUrl),
        '--cwd',
        workspace,
        '--approval',
        'never-ask',
        '--json',
        '[[parent]] find add twice',
      ],
      { env },
    );
    expect(run.stderr).toContain('broken.md: description: missing');
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; body: Record<string, unknown> });
    const sessionId = events.find((e) => e.type === 'session/header')?.body.sessionId as string;
    const results = events.filter((e) => e.type === 'tool/result').map((e) => e.body);
    expect(results.map((r) => r.toolCallId)).toEqual(['call_1', 'call_2']);
    expect(results[0]?.content).toContain('add is defined in src/add.js:1.');
    expect(results[1]?.content).toContain('src/add.js:1 defines add.');
    // The finder profile names its own model; explore runs on the session's.
    const modelOf = (marker: string) =>
      server.requests.find((r) => markerOf(r) === marker)?.body.model;
    expect([modelOf('parent'), modelOf('one'), modelOf('two')]).toEqual([
      'deepseek-v4-flash',
      'deepseek-v4-flash',
      'deepseek-v4-pro',
    ]);
    const starts = events.filter((e) => e.type === 'agent/child/start').map((e) => e.body);
    expect(starts.map((s) => s.profile)).toEqual(['explore', 'finder']);

    const show = await runCli(['show', sessionId], { env, cwd: workspace });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('subagents (tokens with children:');
    expect(show.stdout).toMatch(/finder: look two — completed, \d+ tokens \(cache hit \d+\)/);
    const child = await runCli(['show', starts[0]?.sessionId as string], { env, cwd: workspace });
    expect(child.code).toBe(0);
    expect(child.stdout).toContain('add is defined in src/add.js:1.');
    expect(child.stdout).toContain(`subagent of ${sessionId} (task call call_1 at seq `);

    const replay = await runCli(['replay', sessionId, '--verify'], { env, cwd: workspace });
    expect(replay.stdout).toContain('verified: 2 child session(s) replay and link to their parent');
    expect(replay.code).toBe(0);

    const sessions = await runCli(['sessions', '--json'], { env, cwd: workspace });
    const rows = sessions.stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            id: string;
            parent?: string;
            subagent?: boolean;
            model: string;
            costUsd?: number;
          },
      );
    const childRows = rows.filter((row) => row.parent === sessionId && row.subagent);
    expect(childRows).toHaveLength(2);
    // Each child's cost and model come from its index entry, like any session's.
    const childRow = (id: unknown) => childRows.find((row) => row.id === id);
    expect(childRow(starts[0]?.sessionId)?.model).toBe('openai-compatible/deepseek-v4-flash');
    expect(childRow(starts[1]?.sessionId)?.model).toBe('openai-compatible/deepseek-v4-pro');
    for (const row of childRows) expect(row.costUsd).toBeGreaterThan(0);
    const listed = await runCli(['sessions'], { env, cwd: workspace });
    expect(listed.stdout).toContain('↳ look two');
    // Columns line up: every row's second column (updated) starts where the header's does.
    const [header, ...rowsListed] = listed.stdout.trimEnd().split('\n');
    for (const line of rowsListed) expect(line.indexOf('  20')).toBe(header?.indexOf('  updated'));
    // The parent's recorded totals include its children's usage.
    const index = JSON.parse(
      readFileSync(join(sessionDir, '.spine-index', `${sessionId}.json`), 'utf8'),
    ) as { tokens: number };
    type U = {
      inputTokens: number;
      cacheReadTokens: number;
      cacheWriteTokens: number;
      outputTokens: number;
    };
    const tokens = (u: U) =>
      u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens + u.outputTokens;
    const own = events
      .filter((e) => e.type === 'assistant/message')
      .reduce((sum, e) => sum + tokens(e.body.usage as U), 0);
    const children = events
      .filter((e) => e.type === 'agent/child/end')
      .reduce((sum, e) => sum + tokens(e.body.usage as U), 0);
    expect(children).toBeGreaterThan(0);
    expect(index.tokens).toBe(own + children);

    const requests = server.requests.length;
    const rerun = await runCli(['rerun', sessionId, '--cwd', workspace], { env, cwd: workspace });
    expect(rerun.stdout).toContain(
      'subagent call_1: model outputs 2/2, tool results identical 1/1, requests verified',
    );
    expect(rerun.stdout).toContain(
      'subagent call_2: model outputs 1/1, tool results identical 0/0, requests verified',
    );
    expect(rerun.code).toBe(0);
    expect(server.requests.length).toBe(requests); // offline: no request reached the server
  });
});
