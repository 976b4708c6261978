// Credentials go only to their endpoint, through the real binary: the session runs an
// openai-compatible model on a loopback server (its custom --base-url) with provider keys of
// every provider in the environment. Project profiles name a model of the same provider, of
// DeepSeek and of Anthropic; the loopback server sees which Authorization header arrives.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer, type ReceivedRequest } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

const KEYS = {
  OPENAI_API_KEY: 'sk-session-openai-key',
  DEEPSEEK_API_KEY: 'sk-deepseek-canary-key',
  ANTHROPIC_API_KEY: 'sk-anthropic-canary-key',
};
const profile = (name: string, model: string) =>
  `---\nname: ${name}\ndescription: The ${name} profile\nmodel: ${model}\nsandbox: read-only\n---\nYou are ${name}.\n`;

const markerOf = (request: ReceivedRequest): string => {
  const first = ((request.body?.messages ?? []) as { role: string; content?: unknown }[]).find(
    (message) => message.role === 'user',
  )?.content;
  return typeof first === 'string' ? (/\[\[([a-z]+)\]\]/.exec(first)?.[1] ?? 'parent') : 'parent';
};
const task = (id: string, name: string) => ({
  id,
  name: 'task',
  arguments: JSON.stringify({
    description: `ask ${name}`,
    prompt: `[[${name}]] hi`,
    profile: name,
  }),
});

describe("a profile naming another provider's model", () => {
  it("never sends that provider's key to the session's custom base URL", async () => {
    const server = await createScriptedModelServer({
      replies: (request) => {
        const marker = markerOf(request);
        if (marker !== 'parent') return { text: `${marker} answered` };
        const assistants = (request.body?.messages ?? []).filter(
          (m: { role: string }) => m.role === 'assistant',
        ).length;
        return assistants === 0
          ? { toolCalls: [task('call_1', 'same'), task('call_2', 'deep'), task('call_3', 'anth')] }
          : { text: 'All answered.' };
      },
    });
    try {
      const { env } = isolatedEnv(KEYS);
      const workspace = exampleWorkspace('spine-sub-keys-');
      const agents = join(workspace, '.spine', 'agents');
      mkdirSync(agents, { recursive: true });
      writeFileSync(join(agents, 'same.md'), profile('same', 'openai-compatible/deepseek-v4-pro'));
      writeFileSync(join(agents, 'deep.md'), profile('deep', 'deepseek/deepseek-v4-pro'));
      writeFileSync(join(agents, 'anth.md'), profile('anth', 'anthropic/claude-sonnet-4-5'));
      const run = await runCli(
        [
          'run',
          ...modelArgs(server.baseUrl),
          '--cwd',
          workspace,
          '--approval',
          'never-ask',
          '--json',
          'ask',
        ],
        { env, timeoutMs: 60_000 },
      );
      expect(run.code).toBe(0);
      for (const provider of ['deepseek', 'anthropic'])
        expect(run.stderr).toContain(`a ${provider} key is never sent there`);
      // Every request reached the loopback server with the session's own key, and only that.
      expect(server.requests.length).toBe(5);
      for (const request of server.requests) {
        expect(request.headers.authorization).toBe(`Bearer ${KEYS.OPENAI_API_KEY}`);
        expect(request.headers['x-api-key']).toBeUndefined();
        const headers = JSON.stringify(request.headers);
        expect(headers).not.toContain(KEYS.DEEPSEEK_API_KEY);
        expect(headers).not.toContain(KEYS.ANTHROPIC_API_KEY);
      }
      // The same provider's model runs on the session's endpoint; the others on the session model.
      const modelOf = (marker: string) =>
        server.requests.find((request) => markerOf(request) === marker)?.body.model;
      expect([modelOf('same'), modelOf('deep'), modelOf('anth')]).toEqual([
        'deepseek-v4-pro',
        'deepseek-v4-flash',
        'deepseek-v4-flash',
      ]);
    } finally {
      await server.close();
    }
  }, 90_000);
});
