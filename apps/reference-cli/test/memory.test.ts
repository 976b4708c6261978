import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

type Body = {
  messages: { role: string; content: string }[];
  tools?: { function: { name: string } }[];
};
const systemOf = (body: unknown): string => (body as Body).messages[0]!.content;
const toolsOf = (body: unknown): string[] =>
  ((body as Body).tools ?? []).map((tool) => tool.function.name);
const remember = (fact: string, scope?: 'user') => ({
  name: 'remember',
  arguments: JSON.stringify(scope ? { fact, scope } : { fact }),
});

describe('cross-session memory', { timeout: 120_000 }, () => {
  it('remembers a fact in session 1 and shows it to the model in session 2, replayable and rerunnable', async () => {
    const { env, root } = isolatedEnv();
    const cwd = exampleWorkspace('spine-memory-');
    const pristine = join(root, 'pristine');
    cpSync(cwd, pristine, { recursive: true });
    const userFile = join(root, 'config', 'memory.md');
    mkdirSync(join(root, 'config'), { recursive: true });
    writeFileSync(userFile, '- I like short answers\n');

    const first = await createScriptedModelServer({
      replies: [
        { toolCalls: [remember('Integration tests need PORT=0')] },
        { toolCalls: [remember('Prefers small commits', 'user')] },
        { text: 'Noted.' },
      ],
    });
    servers.push(first);
    const one = await runCli(
      [
        'run',
        ...modelArgs(first.baseUrl),
        '--cwd',
        cwd,
        '--approval',
        'never-ask',
        '--json',
        'note how to test',
      ],
      { env },
    );
    expect(one.stderr).toBe('');
    expect(one.code).toBe(0);
    const events = one.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const sessionOne = events[0].body.sessionId as string;
    const results = events
      .filter((event) => event.type === 'tool/result')
      .map((event) => event.body);
    expect(results.map((body) => body.content)).toEqual([
      'Remembered in project memory (.spine/memory.md): "Integration tests need PORT=0". It applies from the next session; this session\'s system prompt does not change.',
      'Remembered in user memory: "Prefers small commits". It applies from the next session; this session\'s system prompt does not change.',
    ]);
    const projectFile = join(cwd, '.spine', 'memory.md');
    const day = new Date().toISOString().slice(0, 10);
    expect(readFileSync(projectFile, 'utf8')).toContain(
      `- Integration tests need PORT=0 <!-- spine: session ${sessionOne}, ${day} -->`,
    );
    const userAfterOne = readFileSync(userFile, 'utf8');
    expect(userAfterOne).toContain(`- Prefers small commits <!-- spine: session ${sessionOne}, `);
    // Within session 1 the system prompt stayed as loaded: the user file's old fact, nothing new.
    const systems = first.requests.map((request) => systemOf(request.body));
    expect(new Set(systems).size).toBe(1);
    expect(systems[0]).toContain('I like short answers');
    expect(systems[0]).not.toContain('PORT=0');
    expect(toolsOf(first.requests[0]!.body)).toContain('remember');

    const second = await createScriptedModelServer({ replies: [{ text: 'I remember.' }] });
    servers.push(second);
    const two = await runCli(
      ['run', ...modelArgs(second.baseUrl), '--cwd', cwd, '--json', 'what do you know?'],
      { env },
    );
    expect(two.code).toBe(0);
    const sessionTwo = JSON.parse(two.stdout.split('\n')[0]!).body.sessionId as string;
    const system = systemOf(second.requests[0]!.body);
    expect(system).toContain('# Memory from earlier sessions');
    const userHeading = system.indexOf(`## ${userFile} (user memory)`);
    const projectHeading = system.indexOf(`## ${projectFile} (project memory)`);
    expect(userHeading).toBeGreaterThan(-1);
    expect(projectHeading).toBeGreaterThan(userHeading);
    expect(system.indexOf('Integration tests need PORT=0')).toBeGreaterThan(projectHeading);
    expect(system.indexOf('Prefers small commits')).toBeGreaterThan(userHeading);
    const replayed = await runCli(['replay', sessionTwo, '--verify'], { env });
    expect(replayed.code).toBe(0);

    const shown = await runCli(['memory', '--cwd', cwd, '--json'], { env });
    const report = JSON.parse(shown.stdout);
    expect(
      report.files.map((file: { scope: string; path: string }) => [file.scope, file.path]),
    ).toEqual([
      ['user', userFile],
      ['project', projectFile],
    ]);
    expect(report.files[1].facts).toEqual([
      { text: 'Integration tests need PORT=0', sessionId: sessionOne, date: day },
    ]);

    // Rerun session 1 in a fresh copy of the workspace: same tool results, real user memory untouched.
    const rerun = await runCli(['rerun', sessionOne, '--cwd', pristine, '--json'], { env });
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout.trim().split('\n').at(-1)!).toolResults).toEqual({
      recorded: 2,
      rerun: 2,
      same: 2,
    });
    expect(readFileSync(userFile, 'utf8')).toBe(userAfterOne);
  });

  it('does not write user memory in a non-interactive run with the default approval', async () => {
    const server = await createScriptedModelServer({
      replies: [{ toolCalls: [remember('Prefers small commits', 'user')] }, { text: 'Could not.' }],
    });
    servers.push(server);
    const { env, root } = isolatedEnv();
    const cwd = exampleWorkspace('spine-memory-');
    const run = await runCli(
      ['run', ...modelArgs(server.baseUrl), '--cwd', cwd, '--json', 'remember'],
      { env },
    );
    expect(run.code).toBe(4);
    const result = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((event) => event.type === 'tool/result');
    expect(result.body.outcome).toBe('denied');
    expect(result.body.content).toContain('writes user memory');
    expect(existsSync(join(root, 'config', 'memory.md'))).toBe(false);
  });

  it('offers no remember tool and no memory section when memory.enabled is false', async () => {
    const server = await createScriptedModelServer({ replies: [{ text: 'Hi.' }] });
    servers.push(server);
    const { env } = isolatedEnv();
    const cwd = exampleWorkspace('spine-memory-');
    mkdirSync(join(cwd, '.spine'));
    writeFileSync(join(cwd, '.spine', 'memory.md'), '- a remembered fact\n');
    writeFileSync(
      join(cwd, '.spine', 'config.json'),
      JSON.stringify({ memory: { enabled: false } }),
    );
    const run = await runCli(['run', ...modelArgs(server.baseUrl), '--cwd', cwd, 'hi'], { env });
    expect(run.code).toBe(0);
    const body = server.requests[0]!.body;
    expect(toolsOf(body)).not.toContain('remember');
    expect(toolsOf(body)).toContain('read');
    expect(systemOf(body)).not.toContain('Memory from earlier sessions');
    expect(systemOf(body)).not.toContain('a remembered fact');
    const config = await runCli(['config', '--effective', '--cwd', cwd], {
      env: { ...env, SPINE_MEMORY: '1' },
    });
    expect(config.stdout).toMatch(
      /memory\.enabled = true +\[env: environment variable SPINE_MEMORY\]/,
    );
    expect(config.stdout).toMatch(/memory\.userFile = ".*memory\.md" +\[default: built-in\]/);
    // A project cannot redirect user memory to another file.
    writeFileSync(
      join(cwd, '.spine', 'config.json'),
      JSON.stringify({ memory: { userFile: '/etc/passwd' } }),
    );
    const redirected = await runCli(['config', '--cwd', cwd], { env });
    expect(redirected.code).toBe(2);
    expect(redirected.stderr).toContain('key "memory.userFile": is not a known key');
  });
});
