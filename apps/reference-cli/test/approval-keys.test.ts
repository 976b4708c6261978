import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer, type ScriptedReply } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

/** Runs `spine run --approval ask` on a real terminal against `replies`; `drive` answers the prompts. */
async function onTerminal(
  replies: ScriptedReply[],
  drive: (terminal: TmuxTerminal, workspace: string) => Promise<void>,
): Promise<void> {
  const server = await createScriptedModelServer({ replies });
  const workspace = exampleWorkspace('spine-approval-keys-');
  writeFileSync(join(workspace, 'calc.js'), 'function add(a, b) {\n  return a + b;\n}\n');
  const { env } = isolatedEnv();
  const command = spineCommand(BIN, env, [
    'run',
    ...modelArgs(server.baseUrl),
    '--approval',
    'ask',
    'change the files',
  ]);
  const terminal = new TmuxTerminal(command, { cwd: workspace, width: 100 });
  try {
    await drive(terminal, workspace);
  } finally {
    terminal.close();
    await server.close();
  }
}

const call = (id: string, name: string, args: object): ScriptedReply => ({
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
});

describe('approvals on a terminal: one key, with the diff', () => {
  // One session (a CLI start costs seconds): `o` on an edit's diff, `a` on a write (the next
  // write is not asked), Esc on a command. No key is followed by Enter.
  it('refuses an unread edit unasked, decides with o, a and Esc, shows edits and writes as diffs', async () => {
    await onTerminal(
      [
        // Refused without a prompt: the file has not been read yet.
        call('c0', 'edit', { path: 'calc.js', edits: [{ oldText: 'a + b', newText: 'a * b' }] }),
        call('c1', 'read', { path: 'calc.js' }),
        call('c2', 'edit', { path: 'calc.js', edits: [{ oldText: 'a + b', newText: 'a - b' }] }),
        call('c3', 'write', { path: 'one.txt', content: 'one\n' }),
        call('c4', 'write', { path: 'two.txt', content: 'two\n' }),
        call('c5', 'bash', { command: 'touch three' }),
        { text: 'Done.' },
      ],
      async (terminal, workspace) => {
        const edit = await terminal.waitFor(/\[d\]eny ›/);
        expect(edit.match(/\[d\]eny ›/g)).toHaveLength(1);
        expect(edit).toContain('Edit calc.js (+1 −1)');
        expect(edit).toMatch(/2 -\s+return a \+ b;/);
        expect(edit).toMatch(/2 \+\s+return a - b;/);
        terminal.type('o', false);
        const write = await terminal.waitFor(/allowed once[\s\S]*\[d\]eny ›/);
        expect(write).toContain('Write one.txt (+1 −0)');
        terminal.type('a', false);
        const bash = await terminal.waitFor(/allow bash[\s\S]*\[d\]eny ›/);
        expect(bash).not.toContain('Write two.txt');
        terminal.press('Escape');
        const end = await terminal.waitFor(/EXITED:\d+/);
        expect(end).toMatch(/allowed for this session[\s\S]*denied/);
        expect(readFileSync(join(workspace, 'calc.js'), 'utf8')).toContain('return a - b;');
        expect(readFileSync(join(workspace, 'two.txt'), 'utf8')).toBe('two\n');
        expect(existsSync(join(workspace, 'three'))).toBe(false);
      },
    );
  }, 60_000);
});
