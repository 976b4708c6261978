// Positions are checked against the file on disk; a 5,000-line generated file and a file with
// syntax errors are answered normally (typescript-language-server on the fixture project).
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolExecutionContext } from '@spine/protocol';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLspManager,
  createLspTools,
  type LspManager,
  LspPositionError,
} from '../src/index.js';

const fixture = fileURLToPath(new URL('./fixtures/ts-project/', import.meta.url));
let root: string;
let workspace: string;
let lsp: LspManager;
const LINES = 5000;

const context = (): ToolExecutionContext => ({
  callId: 'positions',
  signal: new AbortController().signal,
  cwd: workspace,
  sandbox: 'read-only',
});

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'spine-lsp-positions-'));
  workspace = join(root, 'project');
  cpSync(fixture, workspace, { recursive: true });
  // 5,000 lines: a function per line, each calling the one before it.
  const big = ['export function step0(value: number): number { return value; }'];
  for (let index = 1; index < LINES; index += 1)
    big.push(
      `export function step${index}(value: number): number { return step${index - 1}(value) + 1; }`,
    );
  writeFileSync(join(workspace, 'src/big.ts'), `${big.join('\n')}\n`);
  writeFileSync(
    join(workspace, 'src/syntax.ts'),
    "import { totalArea } from './geometry.js';\n\nexport function half(: number {\n  return totalArea([]) / 2;\n",
  );
  lsp = createLspManager({ cwd: workspace });
  await lsp.definition('src/main.ts', { line: 8, column: 20 });
}, 120_000);

afterAll(async () => {
  await lsp?.shutdown();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('positions', () => {
  it('refuses a line past the end of the file, naming its length', async () => {
    const error = await lsp
      .references('src/main.ts', { line: 99, column: 1 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LspPositionError);
    expect((error as Error).message).toBe(
      'Line 99 is past the end of src/main.ts, which has 11 lines; give a line from 1 to 11',
    );
  });

  it('refuses a column past the end of the line instead of wrapping into the next one', async () => {
    const tool = createLspTools(lsp)[0]!;
    const output = await tool.execute({ path: 'src/main.ts', line: 8, column: 400 }, context());
    expect(output.isError).toBe(true);
    expect(output.content).toMatch(
      /^Column 400 is past the end of line 8 of src\/main.ts, which has \d+ characters; give a column from 1 to \d+$/,
    );
  });

  it('answers or refuses any position clearly, never with a server stack trace', async () => {
    const tool = createLspTools(lsp)[1]!;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -3, max: 40 }),
        fc.integer({ min: -3, max: 200 }),
        async (line, column) => {
          const output = await tool.execute({ path: 'src/geometry.ts', line, column }, context());
          expect(output.content).not.toMatch(/Debug Failure|\n\s+at /);
          if (output.isError) expect(output.content).toMatch(/past the end|not a position/);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});

describe('large and broken files', () => {
  it('answers definition and references at the end of a 5,000-line file', async () => {
    const [definition] = await lsp.definition('src/big.ts', { line: LINES, column: 66 });
    expect(definition).toMatchObject({ line: LINES - 1, column: 17 });
    const references = await lsp.references('src/big.ts', { line: LINES - 1, column: 17 });
    expect(references.map((each) => each.line).sort((a, b) => a - b)).toEqual([LINES - 1, LINES]);
    const symbols = await lsp.documentSymbols('src/big.ts');
    expect(symbols).toHaveLength(LINES);
  });

  it('reports syntax errors and still navigates the broken file', async () => {
    const diagnostics = await lsp.diagnostics('src/syntax.ts');
    expect(diagnostics.some((each) => each.severity === 'error' && each.location.line === 3)).toBe(
      true,
    );
    const [definition] = await lsp.definition('src/syntax.ts', { line: 1, column: 10 });
    expect(definition?.path).toBe(join(workspace, 'src/geometry.ts'));
  });
});
