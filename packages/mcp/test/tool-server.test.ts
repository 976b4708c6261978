import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  type ElicitResult,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { AnyToolDefinition, ToolRunEvent } from '@spine/protocol';
import { createToolRuntime, createWorkspaceTools } from '@spine/tool-runtime';
import { describe, expect, it } from 'vitest';
import { createMcpToolServer } from '../src/index.js';
import { tempFolder } from './helpers.js';

// The server half of @spine/mcp driven by the official SDK client over an in-memory transport,
// with Spine's real tool runtime behind it (validation, approval policy, bubblewrap, path guard).

type Answer = ElicitResult['action'] | 'always';

async function connect(options: {
  approval?: 'ask' | 'auto-edit' | 'never-ask' | 'deny-all';
  elicit?: (message: string) => Answer;
  expose?: string[];
}) {
  const cwd = tempFolder('spine-mcp-serve-');
  writeFileSync(join(cwd, 'notes.txt'), 'alpha\nbeta\n');
  const tools = createWorkspaceTools({ cwd }) as AnyToolDefinition[];
  const runtime = createToolRuntime({ cwd, tools, approval: options.approval ?? 'ask' });
  const events: ToolRunEvent[] = [];
  const server = createMcpToolServer({
    scheduler: runtime,
    tools,
    onEvent: (event) => events.push(event),
    ...(options.expose ? { expose: options.expose } : {}),
  });
  const client = new Client(
    { name: 'test', version: '1.0.0' },
    { capabilities: options.elicit ? { elicitation: { form: {} } } : {} },
  );
  const asked: string[] = [];
  if (options.elicit) {
    const elicit = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const message = (request.params as { message: string }).message;
      asked.push(message);
      const answer = elicit(message);
      if (answer === 'always') return { action: 'accept', content: { always: true } };
      return answer === 'accept' ? { action: 'accept', content: {} } : { action: answer };
    });
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return { client, cwd, events, asked, close: () => client.close() };
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as { type: string; text: string }[]).map((part) => part.text).join('');
}

describe('createMcpToolServer', () => {
  it('lists the tools with their own schemas and hints derived from their permissions', async () => {
    const { client, close } = await connect({});
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(
      ['bash', 'edit', 'glob', 'grep', 'list', 'read', 'write'].sort(),
    );
    expect(byName.get('read')?.inputSchema.required).toContain('path');
    expect(byName.get('read')?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
    });
    expect(byName.get('write')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(byName.get('bash')?.annotations).toMatchObject({ readOnlyHint: false });
    await close();
  });

  it('serves only the exposed tools and answers any other name with -32602, recorded', async () => {
    const { client, events, close } = await connect({ expose: ['read', 'grep'] });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['read', 'grep']);
    const refused = await client.callTool({ name: 'bash', arguments: { command: 'true' } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(McpError);
    expect(refused).toMatchObject({ code: ErrorCode.InvalidParams });
    expect((refused as Error).message).toContain(
      'Unknown tool `bash`. Available tools: read, grep.',
    );
    expect(events.at(-1)).toMatchObject({ type: 'result', body: { outcome: 'not-found' } });
    await close();
  });

  it('runs a read-only call without asking and records approval, start and result', async () => {
    const { client, events, asked, close } = await connect({ elicit: () => 'decline' });
    const result = await client.callTool({ name: 'read', arguments: { path: 'notes.txt' } });
    expect(result.isError).toBe(false);
    expect(text(result)).toContain('alpha');
    expect(asked).toEqual([]);
    expect(events.map((event) => event.type)).toEqual(['approval', 'started', 'result']);
    await close();
  });

  it('asks through elicitation and runs the call when the person accepts', async () => {
    const { client, cwd, asked, events, close } = await connect({ elicit: () => 'accept' });
    const result = await client.callTool({
      name: 'write',
      arguments: { path: 'out.txt', content: 'written\n' },
    });
    expect(result.isError).toBe(false);
    expect(readFileSync(join(cwd, 'out.txt'), 'utf8')).toBe('written\n');
    expect(asked[0]).toContain('Spine asks before running write');
    expect(events[0]).toMatchObject({
      type: 'approval',
      body: { decision: 'allow', by: 'user', scope: 'once' },
    });
    await close();
  });

  it('puts the question with escape sequences from the arguments made visible', async () => {
    const { client, asked, close } = await connect({ elicit: () => 'decline' });
    await client.callTool({
      name: 'write',
      arguments: { path: 'a\u001b[2J\u001b]0;owned\u0007.txt', content: '\u001b[31mred' },
    });
    expect(asked).toHaveLength(1);
    const controls = [...(asked[0] ?? '')].filter((char) => {
      const code = char.charCodeAt(0);
      return (code < 0x20 && char !== '\n') || code === 0x7f;
    });
    expect(controls).toEqual([]);
    expect(asked[0]).toContain('write');
    await close();
  });

  it('remembers an accepted "always" for the rest of the run', async () => {
    const { client, asked, close } = await connect({ elicit: () => 'always' });
    for (const name of ['a.txt', 'a.txt'])
      expect(
        (await client.callTool({ name: 'write', arguments: { path: name, content: 'x' } })).isError,
      ).toBe(false);
    expect(asked).toHaveLength(1);
    await close();
  });

  it('denies the call when the person declines, and does not run it', async () => {
    const { client, cwd, events, close } = await connect({ elicit: () => 'decline' });
    const result = await client.callTool({
      name: 'write',
      arguments: { path: 'no.txt', content: 'x' },
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^Tool call denied \(user\): the person declined/);
    expect(readdirSync(cwd)).not.toContain('no.txt');
    expect(events.map((event) => event.type)).toEqual(['approval', 'result']);
    await close();
  });

  it('denies the call when the person cancels the question', async () => {
    const { client, cwd, close } = await connect({ elicit: () => 'cancel' });
    const result = await client.callTool({
      name: 'write',
      arguments: { path: 'no.txt', content: 'x' },
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('the person cancelled the approval request');
    expect(readdirSync(cwd)).not.toContain('no.txt');
    await close();
  });

  it('denies by the policy, naming it, when the client cannot be asked', async () => {
    const { client, cwd, events, close } = await connect({});
    const result = await client.callTool({
      name: 'write',
      arguments: { path: 'no.txt', content: 'x' },
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /^Tool call denied \(policy:ask\): needs approval .*nobody can be asked/,
    );
    expect(readdirSync(cwd)).not.toContain('no.txt');
    expect(events[0]).toMatchObject({
      type: 'approval',
      body: { decision: 'deny', by: 'policy:ask' },
    });
    await close();
  });

  it('never asks under deny-all, even a client that could answer', async () => {
    const { client, asked, close } = await connect({
      approval: 'deny-all',
      elicit: () => 'accept',
    });
    const result = await client.callTool({ name: 'read', arguments: { path: 'notes.txt' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('deny-all');
    expect(asked).toEqual([]);
    await close();
  });

  it('gives the runtime’s own errors for bad arguments and path escapes', async () => {
    const { client, events, close } = await connect({});
    const missing = await client.callTool({ name: 'read', arguments: { nope: 1 } });
    expect(text(missing)).toBe(
      'Invalid arguments for tool `read`: missing required field `path`. Fix the arguments and call the tool again.',
    );
    const escaped = await client.callTool({
      name: 'read',
      arguments: { path: '../../etc/passwd' },
    });
    expect(escaped.isError).toBe(true);
    expect(text(escaped)).toMatch(/^Path refused: .*climbs out of the workspace/);
    expect(events.filter((event) => event.type === 'result')).toHaveLength(2);
    await close();
  });

  it('answers tools/call without params with -32602 in one readable sentence', async () => {
    const { client, close } = await connect({});
    const refused = await client
      .request({ method: 'tools/call' } as never, CallToolResultSchema)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toMatchObject({ code: ErrorCode.InvalidParams });
    const message = (refused as Error).message;
    expect(message).toContain('Invalid tools/call request: params: expected object');
    expect(message).not.toContain('\n');
    await close();
  });

  for (const depth of [100, 5_000]) {
    it(`refuses arguments nesting ${depth} levels as invalid before anything runs, recordably`, async () => {
      const { client, cwd, events, close } = await connect({ approval: 'never-ask' });
      const x = JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown;
      const result = await client.callTool({
        name: 'write',
        arguments: { path: 'deep.txt', content: 'written\n', x },
      });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^Invalid arguments for tool `write`: .*nest/);
      expect(existsSync(join(cwd, 'deep.txt'))).toBe(false);
      // One result, never started, small enough for the session log (its limit is 64 levels).
      expect(events.map((event) => event.type)).toEqual(['result']);
      expect(events[0]).toMatchObject({ body: { outcome: 'invalid' } });
      expect(JSON.stringify(events[0]).length).toBeLessThan(1_000);
      await close();
    });
  }
});
