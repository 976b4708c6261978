import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { AnyToolDefinition } from '@spine/protocol';
import { createToolRuntime, createWorkspaceTools } from '@spine/tool-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createMcpToolServer,
  type McpHttpServer,
  McpServeAddressError,
  startMcpHttpServer,
} from '../src/index.js';
import { tempFolder } from './helpers.js';

// Streamable HTTP on loopback: the official SDK client with and without the bearer token.

const cwd = tempFolder('spine-mcp-http-');
const tools = createWorkspaceTools({ cwd }) as AnyToolDefinition[];
const runtime = createToolRuntime({ cwd, tools, approval: 'ask' });
const servers: McpHttpServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

async function serve(): Promise<McpHttpServer> {
  const http = await startMcpHttpServer({
    createServer: () => createMcpToolServer({ scheduler: runtime, tools }),
  });
  servers.push(http);
  return http;
}

function clientFor(elicit = false): Client {
  const client = new Client(
    { name: 'test', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} },
  );
  if (elicit)
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: {} }));
  return client;
}

function transportFor(http: McpHttpServer, token: string | undefined) {
  return new StreamableHTTPClientTransport(new URL(http.url), {
    requestInit: token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } },
  });
}

/** A raw POST with chosen headers (the SDK client always sends a correct Host). */
function rawPost(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end('{}');
  });
}

describe('startMcpHttpServer', () => {
  it('serves a client that sends the token: list, call, elicitation on the same request', async () => {
    const http = await serve();
    expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = clientFor(true);
    await client.connect(transportFor(http, http.token));
    const { tools: listed } = await client.listTools();
    expect(listed.map((tool) => tool.name)).toContain('read');
    const wrote = await client.callTool({
      name: 'write',
      arguments: { path: 'http.txt', content: 'over http\n' },
    });
    expect(wrote.isError).toBe(false);
    const read = await client.callTool({ name: 'read', arguments: { path: 'http.txt' } });
    expect(JSON.stringify(read.content)).toContain('over http');
    await client.close();
  });

  it('refuses a client without the token or with a wrong one', async () => {
    const http = await serve();
    for (const token of [undefined, 'wrong', `${http.token}x`]) {
      const client = clientFor();
      await expect(client.connect(transportFor(http, token))).rejects.toThrow();
    }
    expect(await rawPost(http.url, { 'content-type': 'application/json' })).toBe(401);
  });

  it('refuses a Host header that is not loopback (DNS rebinding) and other paths', async () => {
    const http = await serve();
    const auth = { authorization: `Bearer ${http.token}`, 'content-type': 'application/json' };
    expect(await rawPost(http.url, { ...auth, host: 'attacker.example.com' })).toBe(403);
    expect(await rawPost(http.url.replace('/mcp', '/other'), auth)).toBe(404);
  });

  it('refuses to listen anywhere but loopback', async () => {
    for (const host of ['0.0.0.0', '::', '192.0.2.1', 'example.com'])
      await expect(
        startMcpHttpServer({
          host,
          createServer: () => createMcpToolServer({ scheduler: runtime }),
        }),
      ).rejects.toBeInstanceOf(McpServeAddressError);
  });
});
