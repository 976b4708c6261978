// Runnable companion of docs/guides/tools-in-any-mcp-client.md. Offline; run with
//   npx tsx docs/guides/examples/tools-in-any-mcp-client.ts
// Spine's tool runtime served over Streamable HTTP on loopback, called by the official SDK client.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMcpToolServer, startMcpHttpServer } from '@spine/mcp';
import type { AnyToolDefinition, ToolRunEvent } from '@spine/protocol';
import { createToolRuntime, createWorkspaceTools } from '@spine/tool-runtime';

const cwd = await mkdtemp(join(tmpdir(), 'spine-serve-'));
await writeFile(join(cwd, 'notes.md'), 'alpha\nbeta\n');

// 1. The runtime decides everything: schemas, approval policy, sandbox, path guard.
const tools = createWorkspaceTools({ cwd }) as AnyToolDefinition[];
const runtime = createToolRuntime({ cwd, tools, approval: 'ask' });

// 2. One MCP server per client session; every approval, start and result reaches `onEvent`.
const recorded: ToolRunEvent[] = [];
const http = await startMcpHttpServer({
  createServer: () =>
    createMcpToolServer({ scheduler: runtime, tools, onEvent: (event) => recorded.push(event) }),
});

// 3. Any MCP client with the bearer token. This one declares no elicitation, so a call the
//    `ask` policy puts to a person is denied, naming the policy.
const client = new Client({ name: 'example', version: '1.0.0' });
await client.connect(
  new StreamableHTTPClientTransport(new URL(http.url), {
    requestInit: { headers: { Authorization: `Bearer ${http.token}` } },
  }),
);
const { tools: listed } = await client.listTools();
console.log(listed.map((tool) => `${tool.name} readOnly=${tool.annotations?.readOnlyHint}`));
console.log(await client.callTool({ name: 'read', arguments: { path: 'notes.md' } }));
console.log(await client.callTool({ name: 'write', arguments: { path: 'x.md', content: 'x' } }));
console.log(await client.callTool({ name: 'read', arguments: { path: '../../etc/passwd' } }));
console.log(recorded.map((event) => event.type).join(' '));

await client.close();
await http.close();
await rm(cwd, { recursive: true, force: true });
