// The CLI's own I/O as untrusted input: a reader that goes away (`| head -1`), SIGHUP and
// SIGPIPE while the model streams and while a tool runs, a session held by another process.
// Each run ends with its log intact (`turn/end`, `replay --verify`) and a stable exit code.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEvent } from '@spine/protocol';
import { createScriptedModelServer, type ScriptedReply } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLE_REPLIES, EXAMPLE_TASK } from '../scripts/example-task.js';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

const servers: { close(): Promise<void> }[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const server of servers.splice(0)) await server.close();
});

function readLog(sessionDir: string, id: string): SessionEvent[] {
  return readFileSync(join(sessionDir, `${id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as SessionEvent);
}

/** Every proposed tool call has exactly one result in the log. */
function expectNoOrphanedCalls(events: SessionEvent[]): void {
  const proposed = events
    .filter((event) => event.type === 'assistant/message')
    .flatMap((event) => (event.body as { content: Array<{ type: string; id?: string }> }).content)
    .filter((part) => part.type === 'tool-call')
    .map((part) => part.id);
  const answered = events
    .filter((event) => event.type === 'tool/result')
    .map((event) => (event.body as { toolCallId: string }).toolCallId);
  expect(answered.sort()).toEqual(proposed.sort());
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Starts `spine run --json`, collecting stdout; resolves `code` when it exits. */
function start(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [BIN, 'run', '--json', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const code = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    child,
    code,
    stdout: () => stdout,
    stderr: () => stderr,
    sessionId: () => (JSON.parse(stdout.split('\n')[0] ?? '{}').body?.sessionId ?? '') as string,
  };
}

async function setup(replies: ScriptedReply[]) {
  const server = await createScriptedModelServer({ replies });
  servers.push(server);
  const { env, sessionDir } = isolatedEnv();
  const cwd = exampleWorkspace('spine-io-');
  const args = [...modelArgs(server.baseUrl), '--cwd', cwd, '--approval', 'never-ask'];
  return { server, env, sessionDir, cwd, args };
}

// Distinct words: a text of one word repeated is a loop the detector ends the turn on (exit 9).
const SLOW_TEXT: ScriptedReply = {
  text: Array.from({ length: 120 }, (_, i) => `word${i} `).join(''),
  chunkSize: 5,
  delayMs: 25,
};
const SLOW_TOOL: ScriptedReply = {
  toolCalls: [{ id: 'call_sleep', name: 'bash', arguments: '{"command":"sleep 3; echo slept"}' }],
};

describe('spine run with its I/O going away', { timeout: 180_000 }, () => {
  it('runs the task to the end when the --json reader closes after one line (| head -1)', async () => {
    const { env, sessionDir, cwd, args } = await setup(EXAMPLE_REPLIES);
    const shell = spawn(
      'sh',
      [
        '-c',
        `("${process.execPath}" "${BIN}" run --json "$@"; echo $? > "${cwd}/.code") | head -1`,
        'sh',
        ...args,
        EXAMPLE_TASK,
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(shell);
    let firstLine = '';
    shell.stdout.on('data', (chunk: Buffer) => {
      firstLine += chunk.toString('utf8');
    });
    let stderr = '';
    shell.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    expect(await new Promise((resolve) => shell.on('close', resolve))).toBe(0);
    expect(readFileSync(join(cwd, '.code'), 'utf8').trim()).toBe('0');
    expect(stderr).not.toMatch(/EPIPE|unexpected/);
    const id = JSON.parse(firstLine.trim()).body.sessionId as string;
    const events = readLog(sessionDir, id);
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', body: { reason: 'completed' } });
    expect(readFileSync(join(cwd, 'src', 'add.js'), 'utf8')).toContain('return a + b;');
    expect((await runCli(['replay', id, '--verify'], { env })).code).toBe(0);
  });

  it('ends the turn cleanly on SIGHUP mid-stream (exit 130) and the session resumes', async () => {
    const { server, env, sessionDir, args } = await setup([SLOW_TEXT, { text: 'Resumed.' }]);
    const run = start([...args, 'say a lot'], env);
    await until(() => run.stdout().includes('"request/header"'), 'the first request');
    await new Promise((resolve) => setTimeout(resolve, 300));
    run.child.kill('SIGHUP');
    expect(await run.code).toBe(130);
    const id = run.sessionId();
    const events = readLog(sessionDir, id);
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', body: { reason: 'aborted' } });
    const resumed = await runCli(['resume', id, ...args, '--json', 'go on'], { env });
    expect(resumed.code).toBe(0);
    expect(readLog(sessionDir, id).at(-1)).toMatchObject({
      type: 'turn/end',
      body: { reason: 'completed' },
    });
    expect(server.requests.length).toBe(2);
    expect((await runCli(['replay', id, '--verify'], { env })).code).toBe(0);
  });

  it('ends the turn cleanly on SIGHUP mid-tool with no orphaned call, and the session resumes', async () => {
    const { env, sessionDir, args } = await setup([SLOW_TOOL, { text: 'Resumed.' }]);
    const run = start([...args, '--sandbox', 'danger-full-access', 'sleep'], env);
    await until(() => run.stdout().includes('"tool/started"'), 'the tool to start');
    run.child.kill('SIGHUP');
    expect(await run.code).toBe(130);
    const id = run.sessionId();
    const events = readLog(sessionDir, id);
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', body: { reason: 'aborted' } });
    expectNoOrphanedCalls(events);
    const resumed = await runCli(['resume', id, ...args, '--json', 'go on'], { env });
    expect(resumed.code).toBe(0);
    expectNoOrphanedCalls(readLog(sessionDir, id));
    expect((await runCli(['replay', id, '--verify'], { env })).code).toBe(0);
  });

  it('ignores SIGPIPE mid-stream and mid-tool: the task completes with its log intact', async () => {
    const { env, sessionDir, args } = await setup([SLOW_TOOL, SLOW_TEXT]);
    const run = start([...args, '--sandbox', 'danger-full-access', 'sleep then talk'], env);
    await until(() => run.stdout().includes('"tool/started"'), 'the tool to start');
    run.child.kill('SIGPIPE');
    await until(() => (run.stdout().match(/"request\/header"/g) ?? []).length >= 2, 'step 2');
    await new Promise((resolve) => setTimeout(resolve, 200));
    run.child.kill('SIGPIPE');
    expect(await run.code).toBe(0);
    const id = run.sessionId();
    const events = readLog(sessionDir, id);
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', body: { reason: 'completed' } });
    expectNoOrphanedCalls(events);
    expect(run.stderr()).toBe('');
    expect((await runCli(['replay', id, '--verify'], { env })).code).toBe(0);
  });

  it('tells a user whose session is in use what to do (spine show, wait, the pid) and exits 2', async () => {
    const { env, args } = await setup([
      { stallAfterChunks: 2, text: 'Working on it for a long time…' },
    ]);
    const holder = start([...args, 'work'], env);
    await until(() => holder.stdout().includes('"request/header"'), 'the first request');
    const id = holder.sessionId();
    const second = await runCli(['resume', id, ...args, 'more'], { env });
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`spine show ${id}`);
    expect(second.stderr).toContain(`pid ${holder.child.pid}`);
    expect(second.stderr).toContain('Wait for it to finish');
    expect(second.stderr).not.toContain('readOnly');
    holder.child.kill('SIGTERM');
    expect(await holder.code).toBe(130);
  });

  it('works in a 20-column terminal: interactive and run, log intact, exit 0', async () => {
    const { env, sessionDir, cwd, args } = await setup([
      {
        text: 'A reply that is much wider than twenty columns, with a long_unbroken_identifier_here.',
      },
      { toolCalls: [{ id: 'call_r', name: 'read', arguments: '{"path":"src/add.js"}' }] },
      { text: 'Read it.' },
    ]);
    const interactive = new TmuxTerminal(spineCommand(BIN, env, args), {
      cwd,
      width: 20,
      height: 30,
    });
    try {
      await interactive.waitFor(/›$/);
      interactive.type('say something long');
      await interactive.waitFor(/identifier/);
      interactive.type('/quit');
      const screen = await interactive.waitFor(/EXITED:\d+/);
      expect(screen).toContain('EXITED:0');
      expect(screen).not.toMatch(/unexpected|Error:/);
    } finally {
      interactive.close();
    }
    const run = new TmuxTerminal(spineCommand(BIN, env, ['run', ...args, 'read add.js']), {
      cwd,
      width: 20,
      height: 30,
    });
    try {
      const screen = await run.waitFor(/EXITED:\d+/);
      expect(screen).toContain('EXITED:0');
    } finally {
      run.close();
    }
    const listed = await runCli(['sessions', '--json'], { env });
    const ids = listed.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id);
    expect(ids).toHaveLength(2);
    for (const id of ids) {
      expect(readLog(sessionDir, id).at(-1)?.type).toBe('turn/end');
      expect((await runCli(['replay', id, '--verify'], { env })).code).toBe(0);
    }
  });

  it('runs interactive mode from a non-TTY stdin to the end of its input, then exits 0', async () => {
    const { env, sessionDir, args } = await setup([{ text: 'Hello from a pipe.' }]);
    const result = await runCli(args, { env, input: 'say hello\n' });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Hello from a pipe.');
    const listed = await runCli(['sessions', '--json'], { env });
    const id = (JSON.parse(listed.stdout.trim()) as { id: string }).id;
    expect(readLog(sessionDir, id).at(-1)).toMatchObject({
      type: 'turn/end',
      body: { reason: 'completed' },
    });
    expect((await runCli(['replay', id, '--verify'], { env })).code).toBe(0);
  });

  it('exits 2, not 1, when the session directory is unusable or a session file is corrupt', async () => {
    const { env, root } = isolatedEnv();
    const file = join(root, 'not-a-directory');
    writeFileSync(file, 'x');
    const run = await runCli(
      ['run', ...modelArgs('http://127.0.0.1:9'), '--session-dir', file, 'hello'],
      { env },
    );
    expect(run.code).toBe(2);
    // The store's typed refusal: the path, the system's code and what to do.
    expect(run.stderr).toMatch(
      /not-a-directory.* failed with E[A-Z]+ \(.*use another store dir \[STORE_UNAVAILABLE\]/,
    );
    expect(run.stderr).not.toMatch(/bug/);
    const dir = join(root, 'sessions');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'broken.jsonl'), '{"garbage');
    const replayed = await runCli(['replay', 'broken', '--verify', '--session-dir', dir], { env });
    expect(replayed.code).toBe(2);
    expect(replayed.stderr).toContain('SESSION_CORRUPT');
  });

  it('ends the turn cleanly when the terminal of an interactive session hangs up (SIGHUP)', async () => {
    const { env, sessionDir, args } = await setup([SLOW_TEXT]);
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stdin.write('say a lot\n');
    await until(() => stdout.includes('word1 word2'), 'the answer to stream');
    child.kill('SIGHUP');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(130);
    const id = /session (\S+) ·/.exec(stdout)?.[1] ?? '';
    const events = readLog(sessionDir, id);
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', body: { reason: 'aborted' } });
    expect((await runCli(['replay', id, '--verify'], { env })).code).toBe(0);
  });
});
