// Approvals in the interactive REPL: on a terminal (tmux) one key decides, without Enter and
// without the key landing in the input line; the bash question shows the exact command, the
// sandbox mode and the network. Piped, answers are still lines.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer, type ScriptedReply } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

const call = (id: string, name: string, args: object): ScriptedReply => ({
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
});

describe('REPL approvals', () => {
  it('decides with o, v, a, d and Esc without Enter, and shows the bash sandbox and network', async () => {
    const server = await createScriptedModelServer({
      replies: [
        call('c1', 'read', { path: 'calc.js' }),
        call('c2', 'edit', { path: 'calc.js', edits: [{ oldText: 'a + b', newText: 'a - b' }] }),
        call('c3', 'write', { path: 'one.txt', content: 'one\n' }),
        call('c4', 'write', { path: 'two.txt', content: 'two\n' }),
        call('c5', 'bash', { command: 'touch three && echo "made it"' }),
        call('c6', 'bash', { command: 'touch four' }),
        { text: 'Done.' },
      ],
    });
    const workspace = exampleWorkspace('spine-repl-keys-');
    writeFileSync(join(workspace, 'calc.js'), 'function add(a, b) {\n  return a + b;\n}\n');
    const { env } = isolatedEnv();
    const command = spineCommand(BIN, env, [...modelArgs(server.baseUrl), '--approval', 'ask']);
    const terminal = new TmuxTerminal(command, { cwd: workspace, width: 100 });
    try {
      await terminal.waitFor(/›$/);
      terminal.type('change the files');
      const edit = await terminal.waitFor(/Edit calc\.js \(\+1 −1\)[\s\S]*\[d\]eny ›/);
      expect(edit).toMatch(/2 \+\s+return a - b;/);
      // `v` shows the whole diff and asks again; `o` then decides. No Enter for either.
      terminal.type('v', false);
      await terminal.waitFor(/\[d\]eny ›[\s\S]*Edit calc\.js[\s\S]*\[d\]eny ›/);
      terminal.type('o', false);
      await terminal.waitFor(/allowed once[\s\S]*Write one\.txt \(\+1 −0\)[\s\S]*\[d\]eny ›/);
      terminal.type('a', false);
      const bash = await terminal.waitFor(/allow bash[\s\S]*\[d\]eny ›/);
      expect(bash).not.toContain('Write two.txt');
      // The exact command, the sandbox mode and the network it gets.
      expect(bash).toContain('touch three && echo "made it"');
      expect(bash).toMatch(/sandbox: workspace-write/);
      expect(bash).toMatch(/network: off/);
      terminal.type('d', false);
      await terminal.waitFor(/denied[\s\S]*allow bash[\s\S]*touch four[\s\S]*\[d\]eny ›/);
      terminal.press('Escape');
      const end = await terminal.waitFor(/Done\.[\s\S]*\n›$/);
      // Each key is echoed after its question, then what it decided.
      expect(end).toMatch(/\[d\]eny › v\n/);
      expect(end).toMatch(/\[d\]eny › o\nallowed once\n/);
      expect(end).toMatch(/\[d\]eny › a\nallowed for this session\n/);
      expect(end).toMatch(/\[d\]eny › d\ndenied\n/);
      expect(end).toMatch(/\[d\]eny › Esc\ndenied\n/);
      // No key of the answers was left in the input line.
      expect(end.trimEnd().endsWith('›')).toBe(true);
      expect(readFileSync(join(workspace, 'calc.js'), 'utf8')).toContain('return a - b;');
      expect(readFileSync(join(workspace, 'one.txt'), 'utf8')).toBe('one\n');
      expect(readFileSync(join(workspace, 'two.txt'), 'utf8')).toBe('two\n');
      expect(existsSync(join(workspace, 'three'))).toBe(false);
      expect(existsSync(join(workspace, 'four'))).toBe(false);
      // Typing works as before once the questions are answered.
      terminal.type('/quit');
      await terminal.waitFor(/EXITED:0/);
    } finally {
      terminal.close();
      await server.close();
    }
  }, 180_000);

  it('takes answers line by line when stdin is not a terminal', async () => {
    const server = await createScriptedModelServer({
      replies: [call('c1', 'write', { path: 'piped.txt', content: 'piped\n' }), { text: 'Ok.' }],
    });
    const workspace = exampleWorkspace('spine-repl-keys-pipe-');
    const { env } = isolatedEnv();
    const child = spawn(
      process.execPath,
      [BIN, ...modelArgs(server.baseUrl), '--approval', 'ask'],
      { cwd: workspace, env, stdio: 'pipe' },
    );
    let stdout = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const seen = (pattern: RegExp): Promise<void> =>
      new Promise((resolve) => {
        const check = (): void => {
          if (pattern.test(stdout)) {
            child.stdout.off('data', check);
            resolve();
          }
        };
        child.stdout.on('data', check);
        check();
      });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    try {
      child.stdin.write('write the file\n');
      await seen(/\[d\]eny ›/);
      // Off a terminal the answer is a line.
      child.stdin.write('o\n');
      await seen(/Ok\./);
      child.stdin.end();
      expect(await exited).toBe(0);
      expect(stdout).toContain('allowed once');
      expect(readFileSync(join(workspace, 'piped.txt'), 'utf8')).toBe('piped\n');
    } finally {
      child.kill();
      await server.close();
    }
  }, 120_000);
});
