import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnyToolDefinition, ToolExecutionContext, ToolOutput } from '@spine/protocol';
import { afterAll } from 'vitest';

const require = createRequire(import.meta.url);

/** The bin entry of an installed reference server, started with `node` (no npx, no network). */
export function serverBin(name: 'server-everything' | 'server-filesystem'): string {
  const manifest = require.resolve(`@modelcontextprotocol/${name}/package.json`);
  return join(dirname(manifest), 'dist', 'index.js');
}

/** A broken or special test server under test/servers. */
export function testServer(file: string): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'servers', file);
}

// One hook per test file, registered when the file loads: an afterAll registered from inside a
// test (where tempFolder is usually called) never runs, and those folders stayed in /tmp.
const created: string[] = [];
afterAll(() => {
  for (const path of created.splice(0)) rmSync(path, { recursive: true, force: true });
});

/** A temporary folder removed after the file's tests. */
export function tempFolder(prefix = 'spine-mcp-'): string {
  const path = mkdtempSync(join(tmpdir(), prefix));
  created.push(path);
  return path;
}

/** Runs a tool definition the way the runtime does (validated arguments, a signal). */
export function runTool(
  tool: AnyToolDefinition,
  args: Record<string, unknown>,
  extra: Partial<ToolExecutionContext> = {},
): Promise<ToolOutput> {
  const context: ToolExecutionContext = {
    callId: 'call-1',
    signal: new AbortController().signal,
    cwd: process.cwd(),
    sandbox: 'workspace-write',
    ...extra,
  };
  return (
    tool as unknown as { execute: (a: unknown, c: ToolExecutionContext) => Promise<ToolOutput> }
  ).execute(args, context);
}

/** The tool named `name`, or a failure naming the ones there are. */
export function toolNamed(tools: readonly AnyToolDefinition[], name: string): AnyToolDefinition {
  const found = tools.find((tool) => tool.spec.name === name);
  if (!found)
    throw new Error(`no tool ${name}; have ${tools.map((tool) => tool.spec.name).join(', ')}`);
  return found;
}
