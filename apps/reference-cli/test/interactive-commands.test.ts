import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

describe('interactive slash commands', () => {
  it('shows context and cost, switches model, sandbox and approval, compacts, forks, resumes and quits', async () => {
    const server = await createScriptedModelServer({
      replies: [
        { text: 'First answer.', reasoning: 'private chain of thought' },
        { text: 'Summary of the conversation so far.' },
        { text: 'Answer in the fork.' },
      ],
    });
    const workspace = exampleWorkspace('spine-slash-');
    mkdirSync(join(workspace, '.spine'));
    writeFileSync(
      join(workspace, '.spine', 'config.json'),
      JSON.stringify({ hooks: { 'pre-compact': ['cat > pre-compact.json'] } }),
    );
    const { env, sessionDir } = isolatedEnv();
    const command = spineCommand(BIN, env, modelArgs(server.baseUrl));
    const terminal = new TmuxTerminal(command, { cwd: workspace });
    try {
      await terminal.waitFor(/›$/);
      terminal.type('/reasoning');
      await terminal.waitFor(/reasoning collapsed/);
      terminal.type('hello, see @missing.txt');
      const first = await terminal.waitFor(/First answer\.[\s\S]*context [^›]*\n›$/);
      expect(first).toContain('thinking… (collapsed; /reasoning shows it)');
      expect(first).toContain('@missing.txt: no such file in this workspace');
      expect(first).not.toContain('private chain of thought');

      terminal.type('/help');
      await terminal.waitFor(/\/compact +\[focus\][\s\S]*\/quit/);
      terminal.type('/context');
      await terminal.waitFor(
        /system prompt +\S+[\s\S]*tools +\S+ +\d+: .*bash[\s\S]*messages +\S+ +\d+ on the surface[\s\S]*runtime context[\s\S]*total/,
      );
      terminal.type('/compact keep the greeting');
      await terminal.waitFor(/compaction (compacted|failed|not-needed)/);
      expect(JSON.parse(readFileSync(join(workspace, 'pre-compact.json'), 'utf8'))).toMatchObject({
        event: 'pre-compact',
        reason: 'manual',
        focus: 'keep the greeting',
      });
      terminal.type('/sandbox read-only');
      await terminal.waitFor(/sandbox set to read-only/);
      terminal.type('/sandbox');
      await terminal.waitFor(/sandbox read-only \(backend /);
      terminal.type('/approval deny-all');
      await terminal.waitFor(/approval policy set to deny-all/);
      terminal.type('/approval');
      await terminal.waitFor(/approval policy deny-all \(one of/);
      terminal.type('/model openai-compatible/other-model');
      await terminal.waitFor(/model switched to openai-compatible\/other-model/);
      terminal.type('/sessions');
      await terminal.waitFor(/\* \d{8}-\d{6}-[0-9a-f]{6}/);
      terminal.type('/fork');
      const forked = await terminal.waitFor(/forked (\S+) at seq \d+ into (\S+); now in \S+/);
      const [, parent, child] = /forked (\S+) at seq \d+ into (\S+);/.exec(forked)!;
      terminal.type('in the fork');
      await terminal.waitFor(/Answer in the fork\./);
      await terminal.waitFor(/Answer in the fork\.\n.*context [^›]*\n›$/);
      terminal.type(`/resume ${parent}`);
      await terminal.waitFor(new RegExp(`resumed ${parent}; now in ${parent}`));
      terminal.type('/bogus');
      await terminal.waitFor(/unknown command \/bogus/);
      terminal.type('/quit');
      await terminal.waitFor(/EXITED:0/);
      const files = readdirSync(sessionDir).filter((name) => name.endsWith('.jsonl'));
      expect(files.sort()).toEqual([`${parent}.jsonl`, `${child}.jsonl`].sort());
      // The fork's request carried the model chosen with /model.
      expect(server.requests.at(-1)?.body.model).toBe('other-model');
      // Both switches are in the parent's log as the person's `session/config`, like ACP's.
      const configs = readFileSync(join(sessionDir, `${parent}.jsonl`), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .filter((event) => event.type === 'session/config')
        .map((event) => event.body);
      expect(configs).toEqual([
        { option: 'approval', value: 'deny-all', previous: expect.any(String), by: 'person' },
        {
          option: 'model',
          value: 'openai-compatible/other-model',
          previous: expect.stringMatching(/\//),
          by: 'person',
        },
      ]);
      // A rerun of the fork repeats the switches before the turn that followed them: its request
      // carries the model the person chose, as the recording's did.
      const outDir = join(workspace, '.rerun');
      const rerun = await runCli(
        ['rerun', child as string, '--cwd', workspace, '--out-dir', outDir],
        {
          env,
          cwd: workspace,
        },
      );
      expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
      const [rerunFile] = readdirSync(outDir).filter((name) => name.endsWith('.jsonl'));
      const rerunEvents = readFileSync(join(outDir, rerunFile as string), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      const models = rerunEvents
        .filter((event) => event.type === 'request/header')
        .map((event) => event.body.model);
      expect(models.at(-1)).toBe('other-model');
      expect(
        rerunEvents.filter((event) => event.type === 'session/config').map((e) => e.body.option),
      ).toEqual(['approval', 'model']);
    } finally {
      terminal.close();
      await server.close();
    }
  }, 150_000);
});
