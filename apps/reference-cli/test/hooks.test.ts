import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, modelArgs, runCli, tempFolder } from './run-cli.js';

describe('user hooks and project instructions through spine run', { timeout: 180_000 }, () => {
  it('blocks a tool call from a pre-tool-use hook, fires lifecycle hooks and sends AGENTS.md with its path', async () => {
    const server = await createScriptedModelServer({
      replies: [
        { toolCalls: [{ id: 'call_1', name: 'bash', arguments: '{"command":"rm -rf build"}' }] },
        { toolCalls: [{ id: 'call_2', name: 'read', arguments: '{"path":"AGENTS.md"}' }] },
        { text: 'I will not delete the build folder.' },
      ],
    });
    try {
      const cwd = tempFolder('spine-hooks-');
      mkdirSync(join(cwd, '.spine'));
      writeFileSync(join(cwd, 'AGENTS.md'), 'Never delete build folders.');
      writeFileSync(
        join(cwd, '.spine', 'config.json'),
        JSON.stringify({
          hooks: {
            'session-start': ['cat > started.json'],
            'pre-tool-use': [
              {
                command: 'cat > pre.json; echo "rm is not allowed here" >&2; exit 2',
                matcher: 'bash',
              },
            ],
            'post-tool-use': ['cat >> post.jsonl'],
            stop: ['cat > stopped.json'],
          },
        }),
      );
      const { env } = isolatedEnv();
      const result = await runCli(
        [
          'run',
          ...modelArgs(server.baseUrl),
          '--cwd',
          cwd,
          '--approval',
          'never-ask',
          '--json',
          'clean up',
        ],
        { env },
      );
      const events = result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      const results = events
        .filter((event) => event.type === 'tool/result')
        .map((event) => event.body);
      expect(results[0]).toMatchObject({ toolName: 'bash', isError: true });
      expect(results[0].content).toContain('rm is not allowed here');
      expect(results[1]).toMatchObject({ toolName: 'read', isError: false });
      expect(result.code).toBe(4);
      expect(JSON.parse(readFileSync(join(cwd, 'pre.json'), 'utf8'))).toMatchObject({
        event: 'pre-tool-use',
        toolName: 'bash',
        args: { command: 'rm -rf build' },
      });
      const post = readFileSync(join(cwd, 'post.jsonl'), 'utf8');
      expect(post).toContain('"event":"post-tool-use"');
      expect(post).toContain('"toolName":"read"');
      expect(JSON.parse(readFileSync(join(cwd, 'started.json'), 'utf8')).event).toBe(
        'session-start',
      );
      expect(existsSync(join(cwd, 'stopped.json'))).toBe(true);
      const system = server.requests[0]?.body.messages[0];
      expect(system.role).toBe('system');
      expect(system.content).toContain(`## ${join(cwd, 'AGENTS.md')} (project)`);
      expect(system.content).toContain('Never delete build folders.');
    } finally {
      await server.close();
    }
  });
});
