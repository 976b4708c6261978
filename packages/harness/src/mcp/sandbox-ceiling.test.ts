import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AnyToolDefinition, ToolExecutionContext, ToolOutput } from '@spine/protocol';
import { detectSandbox } from '@spine/tool-runtime';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load.js';
import { type SandboxMode, serverSandbox } from './sandbox.js';
import { createConfiguredManager } from './wiring.js';

// A project's .mcp.json (written by whoever controls the repository) under real bubblewrap.
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

function call(tools: AnyToolDefinition[], name: string, args: Record<string, unknown>) {
  const tool = tools.find((candidate) => candidate.spec.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const context: ToolExecutionContext = {
    callId: 'c1',
    signal: new AbortController().signal,
    cwd: process.cwd(),
    sandbox: 'read-only',
  };
  return (
    tool as unknown as { execute: (a: unknown, c: ToolExecutionContext) => Promise<ToolOutput> }
  ).execute(args, context);
}

/** A workspace whose .mcp.json declares `entry`, loaded as the CLI would with `--sandbox`. */
function project(entry: Record<string, unknown>, sandbox: SandboxMode) {
  const workspace = folder('spine-mcp-ceiling-');
  writeFileSync(join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { fs: entry } }));
  const home = folder('spine-mcp-home-');
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
  const { config } = loadConfig({ cwd: workspace, env, flags: { sandbox } });
  return { workspace, config };
}

const MODES: SandboxMode[] = ['read-only', 'workspace-write', 'danger-full-access'];
const WIDTH = { 'read-only': 0, 'workspace-write': 1, 'danger-full-access': 2 } as const;

describe('the session sandbox is the ceiling of every MCP stdio server', () => {
  it('never gives a server more than the session, nor more than it asked for', () => {
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom(...MODES), { nil: undefined }),
        fc.constantFrom(...MODES),
        (requested, session) => {
          const got = serverSandbox(requested, session);
          expect(WIDTH[got]).toBeLessThanOrEqual(WIDTH[session]);
          expect(WIDTH[got]).toBeLessThanOrEqual(WIDTH[requested ?? 'workspace-write']);
        },
      ),
    );
  });

  let backend: Awaited<ReturnType<typeof detectSandbox>>;
  beforeAll(async () => {
    backend = await detectSandbox();
    if (backend?.info.name !== 'bwrap')
      throw new Error(
        'bubblewrap is required for these tests (scripts/system-deps.sh installs it)',
      );
  });

  it('confines a .mcp.json entry asking for danger-full-access under --sandbox read-only', async () => {
    const { workspace, config } = project(
      { command: process.execPath, args: [filesystemServer, '/'], sandbox: 'danger-full-access' },
      'read-only',
    );
    const elsewhere = folder('spine-mcp-elsewhere-');
    const warnings: string[] = [];
    const manager = await createConfiguredManager({
      config,
      cwd: workspace,
      backend,
      warn: (message) => warnings.push(message),
    });
    try {
      const tools = await manager.tools();
      expect(manager.status()[0]).toMatchObject({ state: 'ready', sandboxed: true });
      expect(warnings.join('\n')).toMatch(
        /fs: asks for sandbox danger-full-access; runs under read-only/,
      );
      for (const path of [join(elsewhere, 'escape.txt'), join(workspace, 'inside.txt')]) {
        const write = await call(tools, 'mcp__fs__write_file', { path, content: 'x' });
        expect(write.isError, path).toBe(true);
        expect(existsSync(path)).toBe(false);
      }
    } finally {
      await manager.close();
    }
  }, 90_000);

  it('keeps a server without a sandbox key from writing the workspace of a read-only session', async () => {
    const { workspace, config } = project(
      { command: process.execPath, args: [filesystemServer, '.'] },
      'read-only',
    );
    writeFileSync(join(workspace, 'notes.txt'), 'readable');
    const manager = await createConfiguredManager({ config, cwd: workspace, backend });
    try {
      const tools = await manager.tools();
      const read = await call(tools, 'mcp__fs__read_text_file', {
        path: join(workspace, 'notes.txt'),
      });
      expect(read.content).toBe('readable');
      const write = await call(tools, 'mcp__fs__write_file', {
        path: join(workspace, 'written.txt'),
        content: 'x',
      });
      expect(write.isError).toBe(true);
      expect(existsSync(join(workspace, 'written.txt'))).toBe(false);
    } finally {
      await manager.close();
    }
  }, 90_000);

  it('gives danger-full-access to the entry only when the person ran --sandbox danger-full-access', async () => {
    const { workspace, config } = project(
      { command: process.execPath, args: [filesystemServer, '/'], sandbox: 'danger-full-access' },
      'danger-full-access',
    );
    const manager = await createConfiguredManager({ config, cwd: workspace, backend });
    try {
      await manager.tools();
      expect(manager.status()[0]).toMatchObject({ state: 'ready', sandboxed: false });
    } finally {
      await manager.close();
    }
  }, 90_000);
});
