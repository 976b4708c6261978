// The REPL's lifecycle at its edges: the end of piped input at an approval, lines typed ahead of
// a question, `exit` and `quit`, a bracketed paste, and the terminal going away while a tool
// runs. Each ends with the turn closed in the log (`turn/end`) and a documented exit code.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEvent } from '@spine/protocol';
import { createScriptedModelServer, type ScriptedReply } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs, tempFolder } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

const bash = (id: string, command: string): ScriptedReply => ({
  toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command }) }],
});

function readLog(sessionDir: string, id: string): SessionEvent[] {
  return readFileSync(join(sessionDir, `${id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as SessionEvent);
}

async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs the REPL with `input` piped in (then its end); resolves its code and output. */
function pipedRepl(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; input: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: 'pipe',
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input);
  });
}

const sessionId = (output: string): string => /session (\S+) ·/.exec(output)?.[1] ?? '';

describe('REPL lifecycle with piped input', () => {
  it('answers a question with the line read ahead, and denies at the end of input with exit 4', async () => {
    const server = await createScriptedModelServer({
      replies: [bash('c1', 'touch first'), bash('c2', 'touch second'), { text: 'Both tried.' }],
    });
    const workspace = exampleWorkspace('spine-repl-eof-');
    const { env, sessionDir } = isolatedEnv();
    try {
      const result = await pipedRepl([...modelArgs(server.baseUrl), '--approval', 'ask'], {
        env,
        cwd: workspace,
        input: 'make two files\no\n',
      });
      expect(result.code, result.stderr).toBe(4);
      // `o` answered the first question (it was not queued as a message); nothing answered the
      // second, so it was denied.
      expect(result.stdout).not.toContain('queued');
      expect(result.stdout).toMatch(/\[d\]eny › o\nallowed once/);
      expect(result.stdout).toMatch(/\[d\]eny › \(end of input\)\ndenied/);
      expect(existsSync(join(workspace, 'first'))).toBe(true);
      expect(existsSync(join(workspace, 'second'))).toBe(false);
      const events = readLog(sessionDir, sessionId(result.stdout));
      expect(events.filter((event) => event.type === 'user/message')[0]?.body).toMatchObject({
        content: 'make two files',
      });
      expect(events.at(-1)).toMatchObject({ type: 'turn/end', body: { reason: 'completed' } });
    } finally {
      await server.close();
    }
  }, 120_000);

  it('ends the session on `exit` or `quit` alone without sending them, exiting 0', async () => {
    const server = await createScriptedModelServer({ replies: [{ text: 'Hello.' }] });
    const workspace = exampleWorkspace('spine-repl-exit-');
    try {
      for (const word of ['exit', ' QUIT ']) {
        const { env } = isolatedEnv();
        const result = await pipedRepl(modelArgs(server.baseUrl), {
          env,
          cwd: workspace,
          input: `${word}\nnever sent\n`,
        });
        expect(result.code, result.stderr).toBe(0);
      }
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  }, 120_000);
});

describe('REPL lifecycle in a real terminal', () => {
  it('sends a bracketed multi-line paste as one message', async () => {
    const server = await createScriptedModelServer({ replies: [{ text: 'Got all three.' }] });
    const workspace = exampleWorkspace('spine-repl-paste-');
    const { env, sessionDir } = isolatedEnv();
    const command = spineCommand(BIN, env, modelArgs(server.baseUrl));
    const terminal = new TmuxTerminal(command, { cwd: workspace, width: 100 });
    try {
      await terminal.waitFor(/›$/);
      terminal.paste('line one of paste\nline two of paste\nline three');
      // Nothing is sent until Enter: the three lines wait in the input line.
      await terminal.waitFor(/› line one of paste.line two of paste.line three$/);
      expect(server.requests).toHaveLength(0);
      terminal.press('Enter');
      const screen = await terminal.waitFor(/Got all three\./);
      expect(screen).not.toContain('queued');
      terminal.type('/quit');
      await terminal.waitFor(/EXITED:0/);
      const id = sessionId(screen);
      const typed = readLog(sessionDir, id).filter((event) => event.type === 'user/message');
      expect(typed[0]?.body).toMatchObject({
        content: 'line one of paste\nline two of paste\nline three',
      });
    } finally {
      terminal.close();
      await server.close();
    }
  }, 120_000);

  it('aborts and closes the turn, kills the tool and exits 130 when the terminal goes away', async () => {
    const server = await createScriptedModelServer({
      replies: [
        bash('c1', 'for i in $(seq 1 300); do echo tick $i; echo $i >> ticks.txt; sleep 0.2; done'),
        { text: 'never reached' },
      ],
    });
    const workspace = exampleWorkspace('spine-repl-hangup-');
    const { env, sessionDir } = isolatedEnv();
    const folder = tempFolder('spine-repl-hangup-out-');
    const codeFile = join(folder, 'code');
    const errorFile = join(folder, 'stderr');
    // The shell around spine ignores SIGHUP so it outlives the terminal to write spine's code
    // (Node puts every signal back to its default at start, so spine still gets SIGHUP).
    const spine = spineCommand(BIN, env, [
      ...modelArgs(server.baseUrl),
      '--approval',
      'never-ask',
    ]).replace('; echo EXITED:$?; sleep 60', ` 2>'${errorFile}'; echo $? > '${codeFile}'`);
    const terminal = new TmuxTerminal(`trap '' HUP; ${spine}`, { cwd: workspace, width: 100 });
    try {
      const screen = await terminal.waitFor(/›$/);
      const id = sessionId(screen);
      terminal.type('count slowly');
      await terminal.waitFor(/tick 3/);
      terminal.close();
      await until(() => existsSync(codeFile) && readFileSync(codeFile, 'utf8') !== '', 'exit');
      expect(readFileSync(codeFile, 'utf8').trim()).toBe('130');
      const stderr = readFileSync(errorFile, 'utf8');
      expect(stderr).not.toMatch(/file system refused|Assertion failed|setRawMode/);
      const events = readLog(sessionDir, id);
      expect(events.at(-1)).toMatchObject({ type: 'turn/end', body: { reason: 'aborted' } });
      // The tool's process group was killed: the loop writes no more ticks.
      const ticks = statSync(join(workspace, 'ticks.txt')).size;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(statSync(join(workspace, 'ticks.txt')).size).toBe(ticks);
    } finally {
      terminal.close();
      await server.close();
    }
  }, 120_000);
});
