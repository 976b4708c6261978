import type {
  ModelClient,
  ModelRequest,
  ModelStreamEvent,
  SessionEvent,
  SessionLog,
} from '@spine/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createMcpManager,
  createModelSamplingHandler,
  type McpManager,
  recordedMcpTools,
} from '../src/index.js';
import { runTool, serverBin, toolNamed } from './helpers.js';

/** A model that answers every request with one text, keeping the requests it was sent. */
function answeringModel(text: string): ModelClient & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    specificationVersion: 1,
    provider: 'test',
    requests,
    async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
      requests.push(request);
      yield {
        type: 'finish',
        message: { role: 'assistant', content: [{ type: 'text', text }] },
        finishReason: 'stop',
        rawFinishReason: 'stop',
        usage: { inputTokens: 7, outputTokens: 3 },
      } as ModelStreamEvent;
    },
  };
}

describe('createModelSamplingHandler', () => {
  const managers: McpManager[] = [];
  afterAll(() => Promise.all(managers.map((manager) => manager.close())));

  it("answers server-everything's sampling request with the model and records sampling/answered at the step", async () => {
    const model = answeringModel('sampled by the model');
    const appended: { type: string; body: unknown; position: unknown }[] = [];
    const session = {
      append: (type: string, body: unknown, position: unknown) => {
        appended.push({ type, body, position });
        return {} as SessionEvent;
      },
    } as unknown as Pick<SessionLog, 'append'>;
    const manager = createMcpManager({
      servers: {
        e: {
          command: process.execPath,
          args: [serverBin('server-everything'), 'stdio'],
          sampling: true,
        },
      },
      cwd: process.cwd(),
      answerSampling: createModelSamplingHandler({
        model: () => ({ client: model, modelId: 'm-1' }),
        session,
        position: () => ({ turn: 2, step: 3 }),
      }),
    });
    managers.push(manager);
    const tools = await manager.tools();
    const result = await runTool(toolNamed(tools, 'mcp__e__trigger-sampling-request'), {
      prompt: 'say hi',
    });
    expect(result.isError).toBeFalsy();
    expect(result.content).toContain('sampled by the model');
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]).toMatchObject({ model: 'm-1', tools: [] });
    expect(JSON.stringify(model.requests[0]?.messages)).toContain('say hi');
    expect(appended).toHaveLength(1);
    expect(appended[0]).toMatchObject({
      type: 'sampling/answered',
      body: { source: 'e', model: 'm-1', text: 'sampled by the model', finishReason: 'stop' },
      position: { turn: 2, step: 3 },
    });
  }, 60_000);
});

describe('recordedMcpTools', () => {
  const event = (seq: number, type: string, body: unknown): SessionEvent =>
    ({ seq, type, at: '2026-12-01T00:00:00.000Z', body }) as SessionEvent;
  const spec = (name: string) => ({ name, description: name, parameters: { type: 'object' } });
  const events = [
    event(1, 'tools/defined', { tools: [spec('read'), spec('mcp__s__get'), spec('mcp__s__put')] }),
    event(2, 'tools/defined', { tools: [spec('mcp__s__get')] }),
    event(3, 'tool/result', {
      toolCallId: 'c1',
      toolName: 'mcp__s__get',
      content: 'recorded answer',
      isError: false,
      meta: { server: 's' },
    }),
    event(4, 'tool/result', { toolCallId: 'c2', toolName: 'read', content: 'x', isError: false }),
  ];

  it('defines each recorded MCP tool once and answers a call with the recorded result of its id', async () => {
    const tools = recordedMcpTools(events);
    expect(tools.map((tool) => tool.spec.name)).toEqual(['mcp__s__get', 'mcp__s__put']);
    const get = toolNamed(tools, 'mcp__s__get');
    expect(await runTool(get, {}, { callId: 'c1' })).toEqual({
      content: 'recorded answer',
      isError: false,
      meta: { server: 's' },
    });
    for (const [tool, callId] of [
      [get, 'c9'],
      [toolNamed(tools, 'mcp__s__put'), 'c1'],
    ] as const) {
      const missing = await runTool(tool, {}, { callId });
      expect(missing.isError).toBe(true);
      expect(missing.content).toContain(`No recorded result for ${tool.spec.name} call ${callId}`);
    }
  });
});
