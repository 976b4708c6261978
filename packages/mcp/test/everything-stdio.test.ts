import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpManager, type McpManager } from '../src/index.js';
import { runTool, serverBin, toolNamed } from './helpers.js';

describe('server-everything over stdio', () => {
  let manager: McpManager;
  beforeAll(() => {
    manager = createMcpManager({
      servers: {
        everything: {
          command: process.execPath,
          args: [serverBin('server-everything'), 'stdio'],
          trust: true,
        },
      },
      cwd: process.cwd(),
    });
  });
  afterAll(() => manager.close());

  it('lists its tools as mcp__everything__<tool> definitions with their schemas', async () => {
    const tools = await manager.tools();
    const names = tools.map((tool) => tool.spec.name);
    expect(names).toContain('mcp__everything__echo');
    expect(names).toContain('mcp__everything__get-sum');
    expect(names).toContain('mcp__everything__read_resource');
    const echo = toolNamed(tools, 'mcp__everything__echo');
    expect(echo.spec.description).toContain('[MCP server everything]');
    expect(echo.spec.parameters).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
    });
    expect(manager.status()[0]).toMatchObject({
      name: 'everything',
      state: 'ready',
      transport: 'stdio',
    });
  }, 60_000);

  it('calls echo, get-sum, an image, a resource, structured content and resource links', async () => {
    const tools = await manager.tools();
    const echo = await runTool(toolNamed(tools, 'mcp__everything__echo'), { message: 'hello' });
    expect(echo).toMatchObject({ content: 'Echo: hello', isError: false });
    expect(echo.meta).toMatchObject({
      provider: 'mcp',
      server: 'everything',
      tool: 'echo',
      contentTypes: ['text'],
    });
    const sum = await runTool(toolNamed(tools, 'mcp__everything__get-sum'), { a: 2, b: 3 });
    expect(sum.content).toContain('5');
    const image = await runTool(toolNamed(tools, 'mcp__everything__get-tiny-image'), {});
    expect(image.content).toMatch(/\[image \(image\/png\), \d+ bytes, not shown to the model\]/);
    expect(image.meta?.contentTypes).toContain('image');
    const structured = await runTool(toolNamed(tools, 'mcp__everything__get-structured-content'), {
      location: 'New York',
    });
    expect(structured.isError).toBe(false);
    expect(structured.content).toContain('temperature');
    expect(structured.meta?.structured).toBe(true);
    const links = await runTool(toolNamed(tools, 'mcp__everything__get-resource-links'), {
      count: 2,
    });
    expect(links.content).toContain('[resource link:');
    const reference = await runTool(toolNamed(tools, 'mcp__everything__get-resource-reference'), {
      resourceType: 'Text',
      resourceId: 1,
    });
    expect(reference.meta?.contentTypes).toContain('resource');
    expect(reference.content).toMatch(/\[resource \S+ \(text\/plain\)/);
  }, 60_000);

  it('calls every tool it lists, each with a rendered result', async () => {
    const tools = await manager.tools();
    const args: Record<string, Record<string, unknown>> = {
      echo: { message: 'all' },
      'get-annotated-message': { messageType: 'success', includeImage: true },
      'get-env': {},
      'get-resource-links': { count: 1 },
      'get-resource-reference': { resourceType: 'Blob', resourceId: 2 },
      'get-structured-content': { location: 'Los Angeles' },
      'get-sum': { a: 1, b: 2 },
      'get-tiny-image': {},
      'gzip-file-as-resource': {
        name: 'hello.gz',
        data: 'data:text/plain;base64,aGVsbG8gd29ybGQ=',
        outputType: 'resource',
      },
      'toggle-simulated-logging': {},
      'toggle-subscriber-updates': {},
      'trigger-long-running-operation': { duration: 0.2, steps: 2 },
      read_resource: { uri: 'demo://resource/static/document/architecture.md' },
    };
    // Tools that cannot succeed for this client, by design: task-only execution.
    const expectedErrors = new Set(['simulate-research-query']);
    const called: string[] = [];
    for (const tool of tools) {
      const own = tool.spec.name.replace(/^mcp__everything__/, '');
      const output = await runTool(tool, args[own] ?? { topic: 'tests' });
      called.push(own);
      expect(typeof output.content, own).toBe('string');
      expect(output.isError, `${own}: ${output.content}`).toBe(expectedErrors.has(own));
      expect(output.meta).toMatchObject({ provider: 'mcp', server: 'everything', tool: own });
    }
    expect(called).toEqual(expect.arrayContaining(Object.keys(args)));
    const annotated = await runTool(toolNamed(tools, 'mcp__everything__get-annotated-message'), {
      messageType: 'success',
      includeImage: true,
    });
    expect(annotated.meta?.contentTypes).toEqual(expect.arrayContaining(['text', 'image']));
    const gzip = await runTool(
      toolNamed(tools, 'mcp__everything__gzip-file-as-resource'),
      args['gzip-file-as-resource'] ?? {},
    );
    expect(gzip.content).toMatch(/bytes of binary data not shown/);
  }, 120_000);

  it('turns a bad call into an error result, not an exception', async () => {
    const tools = await manager.tools();
    const sum = await runTool(toolNamed(tools, 'mcp__everything__get-sum'), { a: 'x' });
    expect(sum.isError).toBe(true);
  }, 60_000);

  it('reports progress of a long-running call to the progress callback', async () => {
    const tools = await manager.tools();
    const progress: string[] = [];
    const output = await runTool(
      toolNamed(tools, 'mcp__everything__trigger-long-running-operation'),
      { duration: 0.6, steps: 3 },
      { onProgress: (update) => progress.push(update.message ?? '') },
    );
    expect(output.content).toContain('Long running operation completed');
    // The last notification may race the response (progress is UI only): a prefix, in order.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(['1/3', '2/3', '3/3'].slice(0, progress.length)).toEqual(progress);
  }, 60_000);

  it('cancels a call when the signal aborts', async () => {
    const tools = await manager.tools();
    const controller = new AbortController();
    const call = runTool(
      toolNamed(tools, 'mcp__everything__trigger-long-running-operation'),
      { duration: 30, steps: 30 },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error('stop')), 300);
    await expect(call).rejects.toThrow();
    // The server is still usable afterwards.
    const echo = await runTool(toolNamed(tools, 'mcp__everything__echo'), { message: 'after' });
    expect(echo.content).toBe('Echo: after');
  }, 60_000);

  it('reads a resource through read_resource and lists resources and prompts', async () => {
    const tools = await manager.tools();
    const handle = await manager.server('everything');
    const resources = await handle.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const first = resources[0];
    if (!first) throw new Error('no resource');
    const read = await runTool(toolNamed(tools, 'mcp__everything__read_resource'), {
      uri: first.uri,
    });
    expect(read.isError).toBe(false);
    expect(read.content).toContain(first.uri);
    expect(read.meta?.sourceUrl).toBe(first.uri);
    const prompts = await handle.listPrompts();
    const simple = prompts.find(
      (prompt) => !prompt.arguments?.some((argument) => argument.required),
    );
    if (!simple) throw new Error('no prompt without required arguments');
    expect((await handle.getPrompt(simple.name)).length).toBeGreaterThan(0);
  }, 60_000);
});

describe('elicitation and sampling requests from server-everything', () => {
  const managers: McpManager[] = [];
  afterAll(() => Promise.all(managers.map((manager) => manager.close())));
  const start = (
    extra: Record<string, unknown>,
    options: Partial<Parameters<typeof createMcpManager>[0]> = {},
  ) => {
    const manager = createMcpManager({
      servers: {
        e: { command: process.execPath, args: [serverBin('server-everything'), 'stdio'], ...extra },
      },
      cwd: process.cwd(),
      ...options,
    });
    managers.push(manager);
    return manager;
  };

  it('are not offered unless enabled: the server hides its tools that need them', async () => {
    const names = (await start({}).tools()).map((tool) => tool.spec.name);
    expect(names).not.toContain('mcp__e__trigger-elicitation-request');
    expect(names).not.toContain('mcp__e__trigger-sampling-request');
  }, 60_000);

  it('are refused with a clear error when enabled but nothing answers them', async () => {
    const tools = await start({ elicitation: true, sampling: true }).tools();
    const elicit = await runTool(toolNamed(tools, 'mcp__e__trigger-elicitation-request'), {});
    expect(elicit.isError).toBe(true);
    expect(elicit.content).toContain('Spine cannot answer elicitation requests here');
    const sample = await runTool(toolNamed(tools, 'mcp__e__trigger-sampling-request'), {
      prompt: 'hi',
    });
    expect(sample.isError).toBe(true);
    expect(sample.content).toContain('Spine cannot answer sampling requests here');
  }, 60_000);

  it('reach the handlers the application supplies', async () => {
    const asked: string[] = [];
    const tools = await start(
      { elicitation: true, sampling: true },
      {
        answerElicitation: async ({ server, params }) => {
          asked.push(`${server}: ${params.message}`);
          return { action: 'decline' };
        },
        answerSampling: async () => ({
          role: 'assistant',
          model: 'test',
          content: { type: 'text', text: 'sampled answer' },
        }),
      },
    ).tools();
    const elicit = await runTool(toolNamed(tools, 'mcp__e__trigger-elicitation-request'), {});
    expect(asked).toHaveLength(1);
    expect(elicit.content).toMatch(/decline/i);
    const sample = await runTool(toolNamed(tools, 'mcp__e__trigger-sampling-request'), {
      prompt: 'hi',
    });
    expect(sample.content).toContain('sampled answer');
  }, 60_000);
});
