import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AnyToolDefinition, ToolExecutionContext, ToolOutput } from '@spine/protocol';
import { detectSandbox } from '@spine/tool-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, type SpineConfig } from '../config/schema.js';
import { createConfiguredManager } from './wiring.js';

// server-filesystem under the real bubblewrap sandbox, on temporary folders.
const require = createRequire(import.meta.url);
const filesystemServer = join(
  dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')),
  'dist',
  'index.js',
);

const folders: string[] = [];
function folder(prefix: string): string {
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  folders.push(path);
  return path;
}
afterAll(() => {
  for (const path of folders) rmSync(path, { recursive: true, force: true });
});

function call(
  tools: AnyToolDefinition[],
  name: string,
  args: Record<string, unknown>,
): Promise<ToolOutput> {
  const tool = tools.find((candidate) => candidate.spec.name === name);
  if (!tool) throw new Error(`no tool ${name}; have ${tools.map((t) => t.spec.name).join(', ')}`);
  const context: ToolExecutionContext = {
    callId: 'c1',
    signal: new AbortController().signal,
    cwd: process.cwd(),
    sandbox: 'workspace-write',
  };
  return (
    tool as unknown as { execute: (a: unknown, c: ToolExecutionContext) => Promise<ToolOutput> }
  ).execute(args, context);
}

function configWith(
  servers: Record<string, Record<string, unknown>>,
  sandbox: SpineConfig['sandbox'] = 'workspace-write',
): SpineConfig {
  return { ...defaultConfig(process.env), sandbox, mcp: { servers } };
}

describe('server-filesystem under the bubblewrap sandbox', () => {
  let backend: Awaited<ReturnType<typeof detectSandbox>>;
  beforeAll(async () => {
    backend = await detectSandbox();
    // Fail loudly: CI installs bubblewrap (scripts/system-deps.sh); a missing sandbox is a setup error.
    if (backend?.info.name !== 'bwrap')
      throw new Error(
        'bubblewrap is required for these tests (scripts/system-deps.sh installs it)',
      );
  });

  it('reads and writes inside its root, and the server refuses a path outside its roots', async () => {
    const workspace = folder('spine-mcp-ws-');
    writeFileSync(join(workspace, 'notes.txt'), 'hello from the workspace\n');
    const manager = await createConfiguredManager({
      config: configWith({
        fs: { command: process.execPath, args: [filesystemServer, workspace] },
      }),
      cwd: workspace,
      backend,
    });
    try {
      const tools = await manager.tools();
      expect(manager.status()[0]).toMatchObject({ state: 'ready', sandboxed: true });
      const read = await call(tools, 'mcp__fs__read_text_file', {
        path: join(workspace, 'notes.txt'),
      });
      expect(read).toMatchObject({ isError: false, content: 'hello from the workspace\n' });
      const write = await call(tools, 'mcp__fs__write_file', {
        path: join(workspace, 'new.txt'),
        content: 'written via MCP',
      });
      expect(write.isError).toBe(false);
      expect(readFileSync(join(workspace, 'new.txt'), 'utf8')).toBe('written via MCP');
      const outside = await call(tools, 'mcp__fs__read_text_file', { path: '/etc/hostname' });
      expect(outside.isError).toBe(true);
      expect(outside.content).toMatch(/outside allowed directories|Access denied/i);
    } finally {
      await manager.close();
    }
  }, 90_000);

  it('still confines a server configured with broader roots: writes outside the workspace fail', async () => {
    const workspace = folder('spine-mcp-ws-');
    const elsewhere = folder('spine-mcp-elsewhere-');
    mkdirSync(join(elsewhere, 'sub'));
    const manager = await createConfiguredManager({
      // The server itself would allow the whole file system.
      config: configWith({ broad: { command: process.execPath, args: [filesystemServer, '/'] } }),
      cwd: workspace,
      backend,
    });
    try {
      const tools = await manager.tools();
      const inside = await call(tools, 'mcp__broad__write_file', {
        path: join(workspace, 'ok.txt'),
        content: 'inside',
      });
      expect(inside.isError).toBe(false);
      const escaped = await call(tools, 'mcp__broad__write_file', {
        path: join(elsewhere, 'sub', 'escape.txt'),
        content: 'outside',
      });
      expect(escaped.isError).toBe(true);
      expect(existsSync(join(elsewhere, 'sub', 'escape.txt'))).toBe(false);
    } finally {
      await manager.close();
    }
  }, 90_000);

  it('runs a danger-full-access server unconfined when configured so in a danger-full-access session', async () => {
    const workspace = folder('spine-mcp-ws-');
    const elsewhere = folder('spine-mcp-elsewhere-');
    const manager = await createConfiguredManager({
      config: configWith(
        {
          free: {
            command: process.execPath,
            args: [filesystemServer, '/'],
            sandbox: 'danger-full-access',
          },
        },
        'danger-full-access',
      ),
      cwd: workspace,
      backend,
    });
    try {
      const tools = await manager.tools();
      expect(manager.status()[0]?.sandboxed).toBe(false);
      const write = await call(tools, 'mcp__free__write_file', {
        path: join(elsewhere, 'free.txt'),
        content: 'unconfined',
      });
      expect(write.isError).toBe(false);
      expect(readFileSync(join(elsewhere, 'free.txt'), 'utf8')).toBe('unconfined');
    } finally {
      await manager.close();
    }
  }, 90_000);
});
