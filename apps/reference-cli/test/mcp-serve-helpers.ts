import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyToolDefinition } from '@spine/protocol';
import { tempFolder } from './run-cli.js';

// Helpers of the `spine mcp serve` tests.

/** Processes on this machine whose command line contains `marker`. */
export function processesWith(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) found.push(pid);
    } catch {
      // Ended while we looked.
    }
  }
  return found;
}

export async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The result text of one call made in-process through Spine's own tool runtime (no MCP). */
export async function insideSpine(
  cwd: string,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const [toolRuntime, web] = await Promise.all([
    import('@spine/tool-runtime'),
    import('@spine/web-tools'),
  ]);
  const tools = [
    ...toolRuntime.createWorkspaceTools({ cwd }),
    ...web.createWebTools(web.createWebRuntime({ providers: web.webProvidersFromEnv({}) })),
  ] as AnyToolDefinition[];
  const runtime = toolRuntime.createToolRuntime({ cwd, tools, approval: 'never-ask' });
  const [result] = await runtime.run([
    { type: 'tool-call', id: 'inside', name, arguments: JSON.stringify(args) },
  ]);
  return result?.content ?? '';
}

/** A workspace with a text file, a TypeScript file and a symlink that points out of it. */
export function serveWorkspace(): string {
  const cwd = join(tempFolder('spine-mcp-serve-'), 'workspace');
  mkdirSync(join(cwd, 'src'), { recursive: true });
  writeFileSync(join(cwd, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  writeFileSync(
    join(cwd, 'src', 'greet.ts'),
    'export function greetVisitor(name: string): string {\n  return "hi " + name;\n}\n',
  );
  symlinkSync('/etc', join(cwd, 'outside'));
  return cwd;
}
