import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { AnyToolDefinition, ToolResultBody, ToolRunEvent } from '@spine/protocol';
import { createToolRuntime, createWorkspaceTools } from '@spine/tool-runtime';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMcpToolServer } from '../src/index.js';
import { tempFolder } from './helpers.js';

// Commands through the server: progress while they run, cancellation that ends the process
// group, and hostile arguments that always come back as one recorded result.

async function connect() {
  const cwd = tempFolder('spine-mcp-cmd-');
  const tools = createWorkspaceTools({ cwd }) as AnyToolDefinition[];
  const runtime = createToolRuntime({ cwd, tools, approval: 'never-ask' });
  const events: ToolRunEvent[] = [];
  const server = createMcpToolServer({
    scheduler: runtime,
    tools,
    onEvent: (event) => events.push(event),
  });
  const client = new Client({ name: 'test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return { client, cwd, events };
}

/** Processes on this machine whose command line contains `marker`. */
function processesWith(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) found.push(pid);
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('commands through the MCP server', () => {
  it('sends the output of a running command as progress notifications', async () => {
    const { client } = await connect();
    const messages: string[] = [];
    const result = await client.callTool(
      { name: 'bash', arguments: { command: 'echo first-line; sleep 1; echo second-line' } },
      undefined,
      { onprogress: (progress) => messages.push(progress.message ?? '') },
    );
    expect(result.isError).toBe(false);
    expect(messages.join('')).toContain('first-line');
    expect(messages.join('')).toContain('second-line');
    await client.close();
  }, 60_000);

  it('kills the command’s process group when the client cancels the request', async () => {
    const { client, events } = await connect();
    const marker = `${1000 + Math.floor(Math.random() * 8000)}.4321`;
    const abort = new AbortController();
    const call = client.callTool(
      // A child in the background and one in the foreground: both must go.
      { name: 'bash', arguments: { command: `sleep ${marker} & sleep ${marker}; wait` } },
      undefined,
      { signal: abort.signal },
    );
    call.catch(() => {});
    await until(() => processesWith(`sleep\0${marker}`).length >= 2, 'the commands to start');
    abort.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await until(() => processesWith(`sleep\0${marker}`).length === 0, 'the process group to end');
    await until(() => events.some((event) => event.type === 'result'), 'the recorded result');
    const result = events.find((event) => event.type === 'result') as { body: ToolResultBody };
    expect(result.body.isError).toBe(true);
    await client.close();
  }, 90_000);

  it('returns a huge output cut as inside Spine, and escape sequences byte for byte', async () => {
    const { client, cwd, events } = await connect();
    writeFileSync(join(cwd, 'big.txt'), `${'x'.repeat(200)}\n`.repeat(2000));
    const big = await client.callTool({ name: 'read', arguments: { path: 'big.txt' } });
    const bigText = (big.content as { text: string }[])[0]?.text ?? '';
    const recorded = events.filter((event) => event.type === 'result').at(-1) as {
      body: ToolResultBody;
    };
    expect(bigText).toBe(recorded.body.content);
    expect(bigText.length).toBeLessThan(40_000);
    writeFileSync(join(cwd, 'esc.txt'), 'red \u001b[31mtext\u001b[0m and \u0007bell\n');
    const esc = await client.callTool({ name: 'read', arguments: { path: 'esc.txt' } });
    expect((esc.content as { text: string }[])[0]?.text).toContain('\u001b[31mtext');
    await client.close();
  }, 60_000);

  it('answers any arguments with exactly one recorded result, never a protocol error', async () => {
    const { client, events } = await connect();
    const names = ['read', 'grep', 'glob', 'edit', 'list'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })),
        async (name, args) => {
          const before = events.filter((event) => event.type === 'result').length;
          const result = await client.callTool({ name, arguments: args });
          expect(Array.isArray(result.content)).toBe(true);
          const results = events.filter((event) => event.type === 'result');
          expect(results).toHaveLength(before + 1);
          const body = (results.at(-1) as { body: ToolResultBody }).body;
          expect((result.content as { text: string }[])[0]?.text).toBe(body.content);
        },
      ),
      { numRuns: 60 },
    );
    await client.close();
  }, 120_000);
});
