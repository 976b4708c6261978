import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfig, fixedModel, wireAgent } from '@spine/harness';
import { createOpenAICompatibleModel } from '@spine/llm';
import { createMemoryStore, Session } from '@spine/session-log';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { rerunSession } from '../src/commands/rerun.js';
import { exampleWorkspace, tempFolder } from './run-cli.js';

describe('rerun of a session with input queued during a step', () => {
  it('queues the input again at the same step and matches the recording', async () => {
    const server = await createScriptedModelServer({
      replies: [
        { toolCalls: [{ id: 'call_1', name: 'read', arguments: '{"path":"src/add.js"}' }] },
        { toolCalls: [{ id: 'call_2', name: 'read', arguments: '{"path":"test.js"}' }] },
        { text: 'Read both files, as you also asked.' },
      ],
    });
    try {
      const cwd = exampleWorkspace('spine-rerun-q-');
      const config = {
        ...defaultConfig({}),
        sessionDir: join(cwd, '..', 'sessions'),
        approval: 'never-ask' as const,
        lsp: { enabled: false },
        web: { enabled: false },
      };
      const session = await Session.create({
        store: createMemoryStore(),
        id: 'queued',
        cwd,
        model: 'deepseek/deepseek-v4-flash',
      });
      const client = createOpenAICompatibleModel({
        baseUrl: server.baseUrl,
        provider: 'deepseek',
        allowNoApiKey: true,
      });
      const wired = await wireAgent({
        config,
        cwd,
        session,
        model: fixedModel(client, 'deepseek-v4-flash'),
      });
      let queued = false;
      wired.agent.on('tool-call', () => {
        if (queued) return;
        queued = true;
        wired.agent.enqueue('also read the test', 'next-step');
      });
      const result = await wired.agent.run('read the adder');
      expect(result.reason).toBe('completed');
      const recorded = session.events();
      expect(
        recorded.some(
          (event) => (event.body as { meta?: { queue?: string } }).meta?.queue === 'next-step',
        ),
      ).toBe(true);
      await wired.close();

      const outDir = tempFolder('spine-rerun-out-');
      const summary = await rerunSession(recorded, {
        cwd: exampleWorkspace('spine-rerun-q-'),
        config,
        json: true,
        outDir,
      });
      const rerunLog = readFileSync(join(outDir, `${summary.rerunSessionId}.jsonl`), 'utf8');
      expect(rerunLog).toMatch(
        /"content":"also read the test","source":"user","meta":\{[^}]*"queue":"next-step"/,
      );
      expect(summary.ok).toBe(true);
      expect(summary.modelOutputs).toEqual({ recorded: 3, replayed: 3 });
      expect(summary.toolResults).toEqual({ recorded: 2, rerun: 2, same: 2 });
    } finally {
      await server.close();
    }
  }, 60_000);
});
