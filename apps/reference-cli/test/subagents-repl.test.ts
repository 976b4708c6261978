// Subagents in the REPL, in a real terminal (tmux) against the loopback model server: while two
// children run, one live line per child shows its current tool; `/agents watch 1` expands the
// first child's transcript and `/agents watch` collapses it; `/approval ask` typed while the
// children run reaches them, and the next child question is labelled `[waiter #1] wants to run …`.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createScriptedModelServer,
  type ReceivedRequest,
  type ScriptedReply,
} from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

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
const task = (id: string, marker: string) => ({
  id,
  name: 'task',
  arguments: JSON.stringify({
    description: `look ${marker}`,
    prompt: `[[${marker}]] wait for the signal file`,
    profile: 'waiter',
  }),
});
const bash = (id: string, command: string) => ({
  id,
  name: 'bash',
  arguments: JSON.stringify({ command }),
});
// Each child blocks in bash until the test creates its signal file.
const SCRIPTS: Record<string, ScriptedReply[]> = {
  parent: [{ toolCalls: [task('call_1', 'one'), task('call_2', 'two')] }, { text: 'Both waited.' }],
  one: [
    { toolCalls: [{ id: 'r1', name: 'read', arguments: JSON.stringify({ path: 'src/add.js' }) }] },
    { toolCalls: [bash('b1', 'until [ -f go1 ]; do sleep 0.2; done; echo released one')] },
    { toolCalls: [bash('b2', 'echo after-one')] },
    { text: 'one is done.' },
  ],
  two: [
    { toolCalls: [bash('b3', 'until [ -f go2 ]; do sleep 0.2; done; echo released two')] },
    { toolCalls: [bash('b4', 'echo after-two')] },
    { text: 'two is done.' },
  ],
};

/** A workspace with the `waiter` profile (read-only sandbox, read and bash). */
function waiterWorkspace(): string {
  const workspace = exampleWorkspace('spine-sub-repl-');
  mkdirSync(join(workspace, '.spine', 'agents'), { recursive: true });
  writeFileSync(
    join(workspace, '.spine', 'agents', 'waiter.md'),
    '---\nname: waiter\ndescription: Waits for a signal file\ntools: Read, Bash\nsandbox: read-only\n---\nYou wait.\n',
  );
  return workspace;
}

function scriptedServer() {
  return createScriptedModelServer({
    replies: (request) =>
      SCRIPTS[markerOf(request)]?.[stepOf(request)] ?? {
        error: { status: 400, body: '{"error":{"message":"unscripted"}}' },
      },
  });
}

describe('subagents in the REPL', () => {
  it('shows one live line per child, expands and collapses one, and labels its approvals', async () => {
    const server = await scriptedServer();
    const workspace = waiterWorkspace();
    const { env, sessionDir } = isolatedEnv();
    const command = spineCommand(BIN, env, [
      ...modelArgs(server.baseUrl),
      '--approval',
      'never-ask',
    ]);
    const terminal = new TmuxTerminal(command, { cwd: workspace, width: 150 });
    try {
      await terminal.waitFor(/›$/);
      terminal.type('[[parent]] wait for both');
      // One line per running child, with its current tool and its arguments.
      const live = await terminal.waitFor(
        /⋯ \[waiter #1\] look one · bash command=until \[ -f go1 \].* · step 2 · \d+s\n\s*⋯ \[waiter #2\] look two · bash command=until \[ -f go2 \].* · step 1 · \d+s$/,
      );
      expect(live).not.toMatch(/↳ subagent/); // the panel replaces the per-call progress lines

      // The panel is redrawn over its old rows, so the checks below look at the screen's end.
      terminal.type('/agents watch 1');
      const expanded = await terminal.waitFor(
        /⋯ \[waiter #1\] look one · bash .*\n\s+→ read path=src\/add\.js\n\s+✓ read .*export function add.*\n\s+→ bash command=until .*\n\s*⋯ \[waiter #2\] look two · bash .*$/,
      );
      expect(expanded).toContain('expanded [waiter #1] below; /agents watch collapses');

      terminal.type('/agents watch');
      await terminal.waitFor(
        /subagent view collapsed\n\s*⋯ \[waiter #1\] look one · bash [^\n]*\n\s*⋯ \[waiter #2\] look two · bash [^\n]*$/,
      );

      // A stricter policy while the children run reaches them: their next commands ask. Both
      // ask at about the same time; the questions come one after the other, each labelled.
      terminal.type('/approval ask');
      await terminal.waitFor(/approval policy set to ask/);
      writeFileSync(join(workspace, 'go1'), '');
      writeFileSync(join(workspace, 'go2'), '');
      const question = (n: string, word: string) =>
        new RegExp(
          `\\? \\[waiter #${n}\\] wants to run bash command=echo after-${word} · sandbox: read-only · network: off\\n.*reason: \\[subagent waiter: look ${word}\\] runs a command\\n.*\\[o\\]nce[^\\n]*$`,
        );
      const first = await terminal.waitFor(/wants to run bash command=echo after-(one|two)/);
      const firstIsOne = /wants to run bash command=echo after-one/.test(first);
      await terminal.waitFor(firstIsOne ? question('1', 'one') : question('2', 'two'));
      terminal.type(firstIsOne ? 'o' : 'd');
      await terminal.waitFor(firstIsOne ? question('2', 'two') : question('1', 'one'));
      terminal.type(firstIsOne ? 'd' : 'o');
      // Output held back while the questions waited follows the answers, in order.
      const done = await terminal.waitFor(
        /✓ \[waiter #1\] look one · completed · 4 steps[\s\S]*Both waited\.[\s\S]*context [^›]*\n›$/,
      );
      expect(done).toMatch(/✓ \[waiter #2\] look two · completed · 3 steps/);
      expect(done).toMatch(/\[d\]eny › o\nallowed once\n/);
      expect(done).toMatch(/\[d\]eny › d\ndenied\n/);
      // The panel was redrawn in place: no stale copy of a live line is left on the screen.
      expect(done).not.toMatch(/⋯ \[waiter/);

      // The children's logs record the person's answers (they asked under the parent's new policy).
      const logs = readdirSync(sessionDir)
        .filter((name) => name.endsWith('.jsonl'))
        .map((name) => readFileSync(join(sessionDir, name), 'utf8'));
      const answered = (word: string) =>
        logs.filter((text) => text.includes(`echo after-${word}`) && text.includes('"by":"user"'));
      expect(answered('one')).toHaveLength(1);
      expect(answered('two')).toHaveLength(1);
      expect(readFileSync(join(workspace, 'go1'), 'utf8')).toBe(''); // read-only children

      // /cost totals include the children, like the status line.
      terminal.type('/cost');
      const cost = await terminal.waitFor(/output \d+ · cost \$[\d.]+\n›$/);
      const shown = (pattern: RegExp) => pattern.exec(cost)?.[1];
      expect(shown(/output \d+ · cost (\$[\d.]+)\n›$/)).toBe(
        shown(/context .* · cost (\$[\d.]+) this session(?: · |\n)sandbox workspace-write\n/),
      );

      terminal.type('/quit');
      await terminal.waitFor(/EXITED:0/);
    } finally {
      terminal.close();
      await server.close();
    }
  }, 180_000);

  it('appends plain progress lines when not on a terminal; /agents watch follows one child', async () => {
    const server = await scriptedServer();
    const workspace = waiterWorkspace();
    const { env } = isolatedEnv();
    const child = spawn(
      process.execPath,
      [BIN, ...modelArgs(server.baseUrl), '--approval', 'never-ask'],
      { cwd: workspace, env, stdio: 'pipe' },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    const waitFor = async (pattern: RegExp): Promise<void> => {
      const deadline = Date.now() + 60_000;
      while (!pattern.test(out)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}:\n${out}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    try {
      child.stdin.write('[[parent]] wait for both\n');
      await waitFor(/↳ \[waiter #1\] bash command=until \[ -f go1 \].* · step 2 · \d+s\n/);
      await waitFor(/↳ \[waiter #2\] bash command=until \[ -f go2 \].* · step 1 · \d+s\n/);
      expect(out).toMatch(/↳ \[waiter #1\] started: look one\n/);
      expect(out).toMatch(/↳ \[waiter #1\] read path=src\/add\.js · step 1 · \d+s\n/);
      expect(out).not.toContain('\x1b['); // no cursor movement off a terminal
      child.stdin.write('/agents watch 1\n');
      // The transcript so far, then the watched child's results as they come.
      await waitFor(
        /\[waiter #1\] look one · running · step 2 · \d+s\n\s+→ read path=src\/add\.js\n\s+✓ read .*\n\s+→ bash command=until .*\nfollowing \[waiter #1\]/,
      );
      writeFileSync(join(workspace, 'go1'), '');
      await waitFor(/ {6}\[waiter #1\] ✓ bash released one\n/);
      writeFileSync(join(workspace, 'go2'), '');
      await waitFor(/✓ \[waiter #2\] look two · completed · 3 steps · \d+s\n/);
      await waitFor(
        /Both waited\.\n.*context .* · cost \$[\d.]+ this session · sandbox workspace-write\n/,
      );
      // The second child was not watched: its results are not printed line by line.
      expect(out).not.toMatch(/\[waiter #2\] ✓ bash/);
      // Reopened, the session's earlier children are found in its log by their numbers.
      const sessionId = /session (\S+) · \/help/.exec(out)?.[1] as string;
      child.stdin.write(`/resume ${sessionId}\n`);
      await waitFor(new RegExp(`resumed ${sessionId}; now in ${sessionId}`));
      child.stdin.write('/agents watch 2\n');
      await waitFor(
        /subagent #2 ran before this session was opened here; spine show [0-9a-f-]{36} shows it\n/,
      );
      child.stdin.end();
      expect(await closed).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await server.close();
    }
  }, 180_000);
});
