import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HookInputSchema, type HookRunBody } from '@spine/protocol';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

// The hooks that need a person at a terminal (issue 38), through the REPL in tmux: `notification`
// fires with its documented JSON before an approval question is shown, `post-compact` after
// `/compact` commits; each run is recorded as `hook/run`.

type Event = { seq: number; type: string; body: unknown };

describe('notification and post-compact hooks in the interactive session', () => {
  it('fires notification at an approval question and post-compact after /compact', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          toolCalls: [
            { id: 'c1', name: 'write', arguments: '{"path":"made.txt","content":"made\\n"}' },
          ],
        },
        { text: 'Wrote made.txt.' },
        { text: 'Checkpoint: the user asked for made.txt; it was written.' },
      ],
    });
    const workspace = exampleWorkspace('spine-hooks-repl-');
    mkdirSync(join(workspace, '.spine'), { recursive: true });
    writeFileSync(
      join(workspace, '.spine', 'config.json'),
      JSON.stringify({
        hooks: { notification: ['cat > note.json'], 'post-compact': ['cat > compacted.json'] },
      }),
    );
    const { env, sessionDir } = isolatedEnv();
    const command = spineCommand(BIN, env, [
      ...modelArgs(server.baseUrl),
      '--approval',
      'ask',
      '--sandbox',
      'danger-full-access',
    ]);
    const terminal = new TmuxTerminal(command, { cwd: workspace, width: 100 });
    try {
      await terminal.waitFor(/›$/);
      terminal.type('write made.txt');
      await terminal.waitFor(/Write made\.txt[\s\S]*\[d\]eny ›/);
      // The hook ran before the question was shown.
      expect(
        HookInputSchema.parse(JSON.parse(readFileSync(join(workspace, 'note.json'), 'utf8'))),
      ).toMatchObject({
        event: 'notification',
        kind: 'permission',
        message: expect.stringContaining('write'),
      });
      terminal.type('o', false);
      await terminal.waitFor(/Wrote made\.txt\.[\s\S]*\n›$/);
      terminal.type('/compact');
      await terminal.waitFor(/compaction compacted/);
      terminal.type('/quit');
      await terminal.waitFor(/EXITED:0/);
    } finally {
      terminal.close();
      await server.close();
    }
    expect(readFileSync(join(workspace, 'made.txt'), 'utf8')).toBe('made\n');
    const file = readdirSync(sessionDir).find((name) => name.endsWith('.jsonl')) as string;
    const events = readFileSync(join(sessionDir, file), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Event);
    const end = events.find((event) => event.type === 'compaction/end');
    expect(end).toBeDefined();
    const compacted = HookInputSchema.parse(
      JSON.parse(readFileSync(join(workspace, 'compacted.json'), 'utf8')),
    );
    expect(compacted).toMatchObject({
      event: 'post-compact',
      compactionId: (end?.body as { compactionId?: number } | undefined)?.compactionId,
      tokensBefore: expect.any(Number),
      tokensAfter: expect.any(Number),
    });
    const runs = events.filter((event) => event.type === 'hook/run');
    expect(runs.map((event) => (event.body as HookRunBody).event)).toEqual([
      'notification',
      'post-compact',
    ]);
    expect(runs.map((event) => (event.body as HookRunBody).exitCode)).toEqual([0, 0]);
    // post-compact ran after the compaction committed.
    expect((runs[1]?.seq ?? 0) > (end?.seq ?? Number.POSITIVE_INFINITY)).toBe(true);
  }, 240_000);
});
