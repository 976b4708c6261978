import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolDefinition, ToolExecutionContext, ToolOutput } from '@spine/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LspManager } from '../src/index.js';
import {
  createDiagnosticsHook,
  createLspManager,
  createLspTools,
  LspAbortedError,
} from '../src/index.js';

// One real typescript-language-server is shared by every test in this file (cold start ~2.5 s).
const fixture = fileURLToPath(new URL('./fixtures/ts-project/', import.meta.url));
let root: string;
let workspace: string;
let lsp: LspManager;
let tools: Map<string, ToolDefinition>;

const context = (signal = new AbortController().signal): ToolExecutionContext => ({
  callId: 'call-1',
  signal,
  cwd: workspace,
  sandbox: 'workspace-write',
});

function run(name: string, args: Record<string, unknown>): Promise<ToolOutput> {
  return tools.get(name)!.execute(args, context());
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'spine-lsp-ts-'));
  workspace = join(root, 'project');
  cpSync(fixture, workspace, { recursive: true });
  lsp = createLspManager({ cwd: workspace });
  tools = new Map(createLspTools(lsp).map((tool) => [tool.spec.name, tool]));
  // Warm up: the first answer waits for the project to load.
  await lsp.definition('src/main.ts', { line: 8, column: 19 });
});

afterAll(async () => {
  await lsp.shutdown();
  expect(lsp.processCount).toBe(0);
  rmSync(root, { recursive: true, force: true });
});

describe('tools against typescript-language-server', () => {
  it('lsp_definition jumps from a call to the function declaration in another file', async () => {
    const output = await run('lsp_definition', { path: 'src/main.ts', line: 8, column: 20 });
    expect(output.isError).toBeUndefined();
    expect(output.content).toBe(
      '1 definition of `totalArea` at src/main.ts:8:20:\nsrc/geometry.ts:3:17  export function totalArea(shapes: Shape[]): number {',
    );
    expect(output.meta).toMatchObject({
      provider: 'typescript',
      params: { path: 'src/main.ts', line: 8, column: 20 },
    });
  });

  it('lsp_definition resolves a name on a line and a bare symbol name', async () => {
    const onLine = await run('lsp_definition', { path: 'src/main.ts', line: 6, symbol: 'Circle' });
    expect(onLine.content.split('\n')[1]).toBe(
      'src/shapes/circle.ts:3:14  export class Circle extends Shape {',
    );
    const mentioned = await run('lsp_definition', { path: 'src/main.ts', symbol: 'totalArea' });
    expect(mentioned.content.split('\n')).toEqual([
      '1 definition of `totalArea` at src/main.ts:1:19:',
      'src/geometry.ts:3:17  export function totalArea(shapes: Shape[]): number {',
    ]);
    const byName = await run('lsp_definition', { symbol: 'Shape.describe' });
    expect(byName.content.split('\n')[1]).toBe('src/shapes/shape.ts:7:3  describe(): string {');
  });

  it('lsp_references lists every use of an abstract method across the class hierarchy, sorted', async () => {
    const output = await run('lsp_references', { path: 'src/shapes/shape.ts', symbol: 'area' });
    expect(output.content).toBe(
      [
        '8 references to `area` at src/shapes/shape.ts:5:12:',
        'src/broken.ts:6:24  return new Square(2).area() * 2;',
        'src/geometry.ts:5:46  for (const shape of shapes) total += shape.area();',
        'src/geometry.ts:12:24  if (!best || shape.area() > best.area()) best = shape;',
        'src/geometry.ts:12:38  if (!best || shape.area() > best.area()) best = shape;',
        'src/shapes/circle.ts:8:3  area(): number {',
        'src/shapes/shape.ts:5:12  abstract area(): number;',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture's source text
        'src/shapes/shape.ts:8:43  return `${this.name} with area ${this.area().toFixed(2)}`;',
        'src/shapes/square.ts:8:3  area(): number {',
        'Searched: 1 project (tsconfig.json).',
      ].join('\n'),
    );
  });

  it('lsp_references caps the list and says how many were left out', async () => {
    const output = await run('lsp_references', {
      symbol: 'Shape',
      path: 'src/shapes/shape.ts',
      max: 3,
    });
    const lines = output.content.split('\n');
    expect(lines[0]).toMatch(/^\d+ references to `Shape` at src\/shapes\/shape.ts:2:23:$/);
    expect(lines).toHaveLength(6);
    expect(lines[5]).toBe('Searched: 1 project (tsconfig.json).');
    expect(lines[4]).toMatch(/^\(\d+ more references not shown; narrow the query\)$/);
    expect(output.meta?.truncated).toBe(true);
    const all = await lsp.references('src/shapes/shape.ts', { line: 2, column: 23 });
    const places = all.map(
      (each) => `${each.path.slice(workspace.length + 1)}:${each.line}:${each.column}`,
    );
    expect(places).toEqual(
      expect.arrayContaining([
        'src/shapes/circle.ts:3:29',
        'src/shapes/square.ts:3:29',
        'src/geometry.ts:3:35',
      ]),
    );
  });

  it('lsp_symbols finds declarations by partial name, exact matches first', async () => {
    const output = await run('lsp_symbols', { query: 'Circle' });
    expect(output.content.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(/^\d+ symbols? matching `Circle`:$/),
      'src/shapes/circle.ts:3:14  class Circle  export class Circle extends Shape {',
    ]);
    const methods = await run('lsp_symbols', { query: 'area', kind: 'method' });
    expect(methods.content).toBe(
      [
        '3 symbols matching `area`:',
        'src/shapes/circle.ts:8:3  method area (in Circle)  area(): number {',
        'src/shapes/shape.ts:5:12  method area (in Shape)  abstract area(): number;',
        'src/shapes/square.ts:8:3  method area (in Square)  area(): number {',
        'Searched: 1 project (tsconfig.json).',
      ].join('\n'),
    );
  });

  it('lsp_diagnostics reports the introduced type error with its line', async () => {
    const output = await run('lsp_diagnostics', { path: 'src/broken.ts' });
    expect(output.content).toBe(
      [
        'src/broken.ts: 1 error',
        "src/broken.ts:3:14 error TS2322: Type 'string' is not assignable to type 'number'.",
        "    > export const side: number = 'four';",
      ].join('\n'),
    );
    expect(await run('lsp_diagnostics', { path: 'src/geometry.ts' })).toMatchObject({
      content: 'No problems in src/geometry.ts.',
    });
  });

  it('lsp_call_hierarchy shows callers and callees with their locations', async () => {
    const output = await run('lsp_call_hierarchy', { symbol: 'totalArea' });
    expect(output.content).toBe(
      [
        'Call hierarchy of function `totalArea` at src/geometry.ts:3:17:',
        'Incoming calls (1):',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture's source text
        "  src/main.ts:8:19  in function `report`: return `total ${totalArea(shapes)}; largest: ${biggest?.describe() ?? 'none'}`;",
        'Outgoing calls (1):',
        '  src/shapes/shape.ts:5:12  method `area` (Shape), called at 5:40: abstract area(): number;',
        'Searched: 1 project (tsconfig.json).',
      ].join('\n'),
    );
    const incoming = await run('lsp_call_hierarchy', {
      path: 'src/shapes/shape.ts',
      line: 7,
      column: 3,
      direction: 'incoming',
    });
    expect(incoming.content).toContain('  src/main.ts:8:59  in function `report`:');
    expect(incoming.content).not.toContain('Outgoing');
  });

  it('the second query reuses the running server and starts no process', async () => {
    const before = lsp.starts;
    await lsp.definition('src/geometry.ts', { line: 5, column: 46 });
    await lsp.references('src/geometry.ts', { line: 5, column: 46 });
    expect(lsp.starts).toBe(before);
    expect(lsp.starts).toBe(1);
    expect(lsp.processCount).toBe(1);
    expect(lsp.status()[0]).toMatchObject({ id: 'typescript', state: 'running', starts: 1 });
  });
});

describe('documents, hooks and failures with typescript-language-server', () => {
  it('answers from what is on disk now and tracks the files changed in this session', async () => {
    const broken = join(workspace, 'src/broken.ts');
    const original = readFileSync(broken, 'utf8');
    writeFileSync(broken, original.replace("side: number = 'four'", 'side: number = 4'));
    expect(await run('lsp_diagnostics', { path: 'src/broken.ts' })).toMatchObject({
      content: 'No problems in src/broken.ts.',
    });
    writeFileSync(broken, original.replace("side: number = 'four'", 'side: string = twice()'));
    const output = await run('lsp_diagnostics', { path: 'src/broken.ts' });
    expect(output.content).toContain(
      "src/broken.ts:3:14 error TS2322: Type 'number' is not assignable to type 'string'.",
    );
    expect(lsp.changedFiles()).toEqual([broken]);
    writeFileSync(broken, original);
  });

  it('the diagnostics hook appends the errors an edit introduced, and lsp_diagnostics lists changed files', async () => {
    const hook = createDiagnosticsHook(lsp);
    const main = join(workspace, 'src/main.ts');
    const original = readFileSync(main, 'utf8');
    writeFileSync(
      main,
      original.replace(
        'const biggest = largest(shapes);',
        'const biggest: number = largest(shapes);',
      ),
    );
    const call = {
      toolCallId: 'call-7',
      toolName: 'write',
      args: { path: 'src/main.ts' },
      tool: tools.get('lsp_symbols')!,
    };
    const edited = await hook(call, { content: 'Wrote src/main.ts' }, context());
    expect(edited?.content).toMatch(
      /^Wrote src\/main.ts\n\nDiagnostics after this change:\nsrc\/main.ts: \d errors?\nsrc\/main.ts:7:9 error TS2322: Type 'Shape \| undefined' is not assignable to type 'number'./,
    );
    expect(edited?.meta?.diagnostics).toBeGreaterThanOrEqual(1);
    expect(lsp.changedFiles()).toContain(main);
    // Other tools and failed edits are left alone.
    expect(await hook({ ...call, toolName: 'read' }, { content: 'x' }, context())).toBeUndefined();
    expect(await hook(call, { content: 'failed', isError: true }, context())).toBeUndefined();

    const changed = await run('lsp_diagnostics', {});
    expect(changed.content).toMatch(
      /^\d+ problems? in 2 changed files:\nsrc\/broken.ts: 1 error\n/,
    );
    expect(changed.content).toContain('src/main.ts:7:9 error TS2322');

    writeFileSync(main, original);
    const clean = await hook(call, { content: 'Wrote src/main.ts' }, context());
    expect(clean?.content).toBe(
      'Wrote src/main.ts\n\nDiagnostics after this change:\nNo problems in src/main.ts.',
    );
  });

  it('an edited file that is not open yet is sent to the server, so its dependents are re-checked', async () => {
    const hook = createDiagnosticsHook(lsp);
    const geometry = join(workspace, 'src/geometry.ts');
    const original = readFileSync(geometry, 'utf8');
    const call = {
      toolCallId: 'call-8',
      toolName: 'edit',
      args: { path: 'src/geometry.ts' },
      tool: tools.get('lsp_symbols')!,
    };
    writeFileSync(
      geometry,
      original.replace('export function totalArea', 'export function sumArea'),
    );
    expect((await hook(call, { content: 'Edited' }, context()))?.content).toBe(
      'Edited\n\nDiagnostics after this change:\nNo problems in src/geometry.ts.',
    );
    const main = await run('lsp_diagnostics', { path: 'src/main.ts' });
    expect(main.content).toContain(
      `src/main.ts:1:19 error TS2305: Module '"./geometry.js"' has no exported member 'totalArea'.`,
    );
    writeFileSync(geometry, original);
    await hook(call, { content: 'Edited' }, context());
    expect(await run('lsp_diagnostics', { path: 'src/main.ts' })).toMatchObject({
      content: 'No problems in src/main.ts.',
    });
  });

  it('keeps paths inside the workspace and omits answers that lie outside it', async () => {
    const outside = join(root, 'outside.ts');
    writeFileSync(outside, 'export const secret = 1;\n');
    symlinkSync(outside, join(workspace, 'src/link.ts'));
    const escaped = await run('lsp_definition', { path: '../outside.ts', line: 1, column: 14 });
    expect(escaped).toMatchObject({ isError: true });
    expect(escaped.content).toContain('is outside the workspace');
    const linked = await run('lsp_references', { path: 'src/link.ts', line: 1, column: 14 });
    expect(linked).toMatchObject({ isError: true });
    expect(linked.content).toContain(`is a link to ${outside}, outside the workspace`);
    // Math.PI is declared in TypeScript's lib files, outside the workspace.
    const library = await run('lsp_definition', {
      path: 'src/shapes/circle.ts',
      line: 9,
      symbol: 'PI',
    });
    expect(library.content).toBe(
      '0 definitions of `PI` at src/shapes/circle.ts:9:17:\n(1 definition outside the workspace omitted)',
    );
  });

  it('cancels a query when its AbortSignal fires and keeps the server running', async () => {
    const starts = lsp.starts;
    const controller = new AbortController();
    const pending = lsp.references(
      'src/shapes/shape.ts',
      { line: 2, column: 23 },
      { signal: controller.signal },
    );
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(LspAbortedError);
    const tool = tools.get('lsp_references')!;
    await expect(
      tool.execute({ symbol: 'Shape' }, context(AbortSignal.abort())),
    ).rejects.toBeInstanceOf(LspAbortedError);
    expect(await lsp.definition('src/main.ts', { line: 8, column: 20 })).toHaveLength(1);
    expect(lsp.starts).toBe(starts);
  });

  it('recovers from a server crash mid-session: the next query starts a new server and answers', async () => {
    const pid = lsp.status()[0]?.pid;
    expect(pid).toBeTypeOf('number');
    process.kill(pid!, 'SIGKILL');
    const deadline = Date.now() + 5000;
    while (lsp.processCount > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lsp.status()[0]).toMatchObject({ state: 'crashed' });
    const output = await run('lsp_definition', { path: 'src/main.ts', line: 8, column: 20 });
    expect(output.content).toContain('src/geometry.ts:3:17  export function totalArea');
    expect(lsp.starts).toBe(2);
    expect(lsp.status()[0]).toMatchObject({ state: 'running', starts: 2 });
    expect(lsp.status()[0]?.lastError).toContain('SIGKILL');
  }, 60_000);
});
