// Profile directories of every file type, through the real binary: a FIFO, a socket, a directory
// named `*.md`, an oversized file and a symbolic link among a project's profiles are each reported
// alone while the project's other profiles still load and run; start-up never blocks. The user's
// own directory may link to a profile kept elsewhere.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createScriptedModelServer, type ReceivedRequest } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli, tempFolder } from './run-cli.js';

const profile = (name: string) =>
  `---\nname: ${name}\ndescription: The ${name} profile\nsandbox: read-only\n---\nYou are ${name}.\n`;

const markerOf = (request: ReceivedRequest): string => {
  const first = ((request.body?.messages ?? []) as { role: string; content?: unknown }[]).find(
    (message) => message.role === 'user',
  )?.content;
  return typeof first === 'string' ? (/\[\[([a-z]+)\]\]/.exec(first)?.[1] ?? 'parent') : 'parent';
};
const task = (id: string, profileName: string) => ({
  id,
  name: 'task',
  arguments: JSON.stringify({
    description: `ask ${profileName}`,
    prompt: `[[${profileName}]] say hello`,
    profile: profileName,
  }),
});

describe('spine with hostile profile directories', () => {
  it('reports each unusable profile file alone, never blocks, and runs the usable ones', async () => {
    const server = await createScriptedModelServer({
      replies: (request) => {
        const marker = markerOf(request);
        if (marker !== 'parent') return { text: `${marker} says hello` };
        const assistants = (request.body?.messages ?? []).filter(
          (m: { role: string }) => m.role === 'assistant',
        ).length;
        return assistants === 0
          ? { toolCalls: [task('call_1', 'reviewer'), task('call_2', 'mine')] }
          : { text: 'Both answered.' };
      },
    });
    const { env, root } = isolatedEnv();
    const workspace = exampleWorkspace('spine-sub-profiles-');
    const agents = join(workspace, '.spine', 'agents');
    mkdirSync(agents, { recursive: true });
    writeFileSync(join(agents, 'reviewer.md'), profile('reviewer'));
    // A name and a body that would retitle the terminal and reorder its text if printed raw.
    const hostile = 'evil\u001b]0;pwned\u0007\u202e.md';
    writeFileSync(join(agents, hostile), '---\nname: x\u001b[2J\n---\n');
    execFileSync('mkfifo', [join(agents, 'fifo.md')]);
    mkdirSync(join(agents, 'folder.md'));
    writeFileSync(join(agents, 'huge.md'), `${profile('huge')}${'x'.repeat(300 * 1024)}`);
    const elsewhere = tempFolder('spine-profile-elsewhere-');
    writeFileSync(join(elsewhere, 'linked.md'), profile('linked'));
    symlinkSync(join(elsewhere, 'linked.md'), join(agents, 'linked.md'));
    const socket = createServer();
    await new Promise<void>((resolve) => socket.listen(join(agents, 'socket.md'), resolve));
    // The user's own directory: a link to a profile kept elsewhere is followed.
    const userAgents = join(root, '.spine', 'agents');
    mkdirSync(userAgents, { recursive: true });
    writeFileSync(join(elsewhere, 'mine.md'), profile('mine'));
    symlinkSync(join(elsewhere, 'mine.md'), join(userAgents, 'mine.md'));
    try {
      const run = await runCli(
        [
          'run',
          ...modelArgs(server.baseUrl),
          '--cwd',
          workspace,
          '--approval',
          'never-ask',
          '--json',
          'ask both',
        ],
        { env, timeoutMs: 60_000 },
      );
      expect(run.code).toBe(0);
      const skipped = (name: string) =>
        `agent profile skipped: agent profile ${join(agents, name)}: file: `;
      expect(run.stderr).toContain(
        `${skipped('fifo.md')}is a FIFO (named pipe), not a regular file`,
      );
      expect(run.stderr).toContain(`${skipped('socket.md')}is a socket, not a regular file`);
      expect(run.stderr).toContain(`${skipped('folder.md')}is a directory, not a regular file`);
      expect(run.stderr).toContain(`${skipped('huge.md')}is larger than 262144 bytes`);
      expect(run.stderr).toContain(`${skipped('linked.md')}is a symbolic link`);
      expect(run.stderr).toContain('evil\\x1b]0;pwned\\x07\\u202e.md');
      for (const raw of ['\u001b', '\u0007', '\u202e']) expect(run.stderr).not.toContain(raw);
      const results = run.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; body: Record<string, unknown> })
        .filter((event) => event.type === 'tool/result')
        .map((event) => event.body);
      expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([
        ['call_1', false],
        ['call_2', false],
      ]);
      expect(results[0]?.content).toContain('reviewer says hello');
      expect(results[1]?.content).toContain('mine says hello');
      // The task tool offered the usable profiles only.
      const tools = JSON.stringify(server.requests[0]?.body.tools ?? []);
      expect(tools).toContain('reviewer: The reviewer profile');
      expect(tools).toContain('mine: The mine profile');
      expect(tools).not.toContain('linked');
      expect(tools).not.toContain('huge');
    } finally {
      await new Promise((resolve) => socket.close(resolve));
      await server.close();
    }
  }, 90_000);
});
