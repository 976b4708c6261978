import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolSpecSchema } from '@spine/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { createLspManager } from './manager.js';
import { createLspTools } from './tools.js';

const workspace = mkdtempSync(join(tmpdir(), 'spine-lsp-tools-'));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

describe('createLspTools', () => {
  const manager = createLspManager({ cwd: workspace, servers: [] });
  const tools = createLspTools(manager);
  const context = {
    callId: 'c1',
    signal: new AbortController().signal,
    cwd: workspace,
    sandbox: 'read-only' as const,
  };

  it('exports five read-only, concurrency-safe tools with valid specs', () => {
    expect(tools.map((tool) => tool.spec.name)).toEqual([
      'lsp_definition',
      'lsp_references',
      'lsp_symbols',
      'lsp_diagnostics',
      'lsp_call_hierarchy',
    ]);
    for (const tool of tools) {
      expect(() => ToolSpecSchema.parse(tool.spec)).not.toThrow();
      expect(tool.spec.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.isConcurrencySafe).toBe(true);
      expect(tool.permissions).toEqual({});
    }
    expect(tools[2]?.spec.parameters.required).toEqual(['query']);
  });

  it('explains what is missing when a target is underspecified', async () => {
    const definition = tools[0]!;
    const none = await definition.execute({}, context);
    expect(none).toMatchObject({ isError: true });
    expect(none.content).toBe(
      'Give `path` with `line` and `column` (1-based), or a `symbol` name (optionally with `path`).',
    );
    const lineOnly = await definition.execute({ path: 'a.ts', line: 1 }, context);
    expect(lineOnly.content).toContain('does not exist in the workspace');
  });

  it('says so when no file changed yet and no path was given', async () => {
    const output = await tools[3]!.execute({}, context);
    expect(output.content).toBe(
      'No files changed in this session yet; pass `path` to check a file.',
    );
    expect(output.isError).toBeUndefined();
  });
});
