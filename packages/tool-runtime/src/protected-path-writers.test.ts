import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApprovalRequest } from '@spine/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { createToolRuntime } from './runtime.js';
import { createWriteTool } from './tool-write.js';

// Temp folders this file makes, removed when it ends.
const created: string[] = [];
function track(dir: string): string {
  created.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A tool that appends a line to a workspace file it names in `mutatedPaths`, as memory tools do. */
function appendTool(cwd: string) {
  return defineTool({
    name: 'note',
    description: 'Appends a line.',
    parameters: z.object({ path: z.string(), line: z.string() }),
    permissions: { writesFiles: true },
    mutatedPaths: (args) => [join(cwd, args.path)],
    execute: async (args) => {
      writeFileSync(join(cwd, args.path), `${args.line}\n`, { flag: 'a' });
      return { content: 'ok' };
    },
  });
}

describe('protectedPathWriters', () => {
  it('lets only the named tool write only the named protected paths under the policy', async () => {
    const cwd = track(mkdtempSync(join(tmpdir(), 'spine-writers-')));
    mkdirSync(join(cwd, '.spine'));
    const runtime = createToolRuntime({
      cwd,
      tools: [appendTool(cwd) as never, createWriteTool({ cwd }) as never],
      approval: 'auto-edit',
      sandboxBackend: null,
      protectedPathWriters: { note: ['.spine/notes.md'] },
    });
    const asked: ApprovalRequest[] = [];
    let id = 0;
    const call = async (name: string, args: object) =>
      (
        await runtime.run(
          [{ type: 'tool-call', id: `c${++id}`, name, arguments: JSON.stringify(args) }],
          {
            approve: async (request) => {
              asked.push(request);
              return 'deny';
            },
          },
        )
      )[0]!;
    expect((await call('note', { path: '.spine/notes.md', line: 'a' })).isError).toBe(false);
    expect(asked).toEqual([]);
    expect((await call('note', { path: '.spine/config.json', line: 'a' })).outcome).toBe('denied');
    expect((await call('write', { path: '.spine/notes.md', content: 'b' })).outcome).toBe('denied');
    expect(asked.map((request) => request.toolName)).toEqual(['note', 'write']);
    expect(asked.every((request) => request.reason.includes('a protected path'))).toBe(true);
    expect(readFileSync(join(cwd, '.spine/notes.md'), 'utf8')).toBe('a\n');
  });
});
