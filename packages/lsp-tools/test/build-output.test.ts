// Source over build output (typescript-language-server): a workspace package consumed through
// node_modules with its build output in dist/. With declaration maps, go-to-definition from the
// import lands in the package's source; without them the answer says it only found build
// output; lookups by name pick the source declaration; dist/ hits are counted, not listed.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { ToolExecutionContext } from '@spine/protocol';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLspManager, createLspTools, type LspManager } from '../src/index.js';

let root: string;
let lsp: LspManager;
const context = (): ToolExecutionContext => ({
  callId: 'dist',
  signal: new AbortController().signal,
  cwd: root,
  sandbox: 'read-only',
});
const run = (name: string, args: Record<string, unknown>) =>
  createLspTools(lsp)
    .find((tool) => tool.spec.name === name)!
    .execute(args, context());

const SOURCE =
  'export interface Options { size: number }\n\nexport function makeThing(options: Options): number {\n  return options.size * 2;\n}\n';

/** A package `name` with src/index.ts and dist/index.d.ts (plus a declaration map if asked). */
function writePackage(name: string, withMap: boolean): void {
  const dir = join(root, 'packages', name);
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'dist'), { recursive: true });
  const text = SOURCE.replaceAll('makeThing', `make${name}`);
  writeFileSync(join(dir, 'src/index.ts'), text);
  const out = ts.transpileDeclaration(text, {
    fileName: 'index.ts',
    compilerOptions: { declarationMap: withMap },
  });
  let declarations = out.outputText.replace(/\/\/# sourceMappingURL=.*\n?$/, '');
  if (withMap) {
    declarations += '//# sourceMappingURL=index.d.ts.map\n';
    const map = JSON.parse(out.sourceMapText ?? '{}') as { sources: string[] };
    map.sources = ['../src/index.ts'];
    writeFileSync(join(dir, 'dist/index.d.ts.map'), JSON.stringify(map));
  }
  writeFileSync(join(dir, 'dist/index.d.ts'), declarations);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name, type: 'module', types: './dist/index.d.ts' }),
  );
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'nodenext',
        composite: true,
        outDir: 'dist',
        rootDir: 'src',
      },
      include: ['src'],
    }),
  );
  symlinkSync(dir, join(root, 'node_modules', name));
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'spine-lsp-dist-'));
  mkdirSync(join(root, 'node_modules'));
  mkdirSync(join(root, 'app'));
  writePackage('mapped', true);
  writePackage('unmapped', false);
  writeFileSync(
    join(root, 'app/main.ts'),
    "import { makemapped } from 'mapped';\nimport { makeunmapped } from 'unmapped';\n\nexport const both = makemapped({ size: 3 }) + makeunmapped({ size: 4 });\n",
  );
  writeFileSync(
    join(root, 'app/tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext' }, include: ['*.ts'] }),
  );
  lsp = createLspManager({ cwd: root });
});

afterAll(async () => {
  await lsp?.shutdown();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('source over build output', () => {
  it('follows a declaration map from the import to the package source', async () => {
    const found = await lsp.definition('app/main.ts', { line: 4, column: 21 });
    expect(found.map((each) => `${relative(root, each.path)}:${each.line}:${each.column}`)).toEqual(
      ['packages/mapped/src/index.ts:3:17'],
    );
  });

  it('says when only build output was found, instead of presenting it as source', async () => {
    const output = await run('lsp_definition', { path: 'app/main.ts', line: 4, column: 50 });
    expect(output.content.split('\n')).toEqual([
      '1 definition of `makeunmapped` at app/main.ts:4:50:',
      'packages/unmapped/dist/index.d.ts:4:25  export declare function makeunmapped(options: Options): number;',
      '(only build output was found: no definitions in workspace source)',
    ]);
  });

  it('picks the source declaration by name and counts the build output it left out', async () => {
    const byName = await run('lsp_definition', { symbol: 'makeunmapped' });
    expect(byName.content.split('\n')).toEqual([
      '1 definition of `makeunmapped` at packages/unmapped/src/index.ts:3:17:',
      '(1 more in build output or dependencies not considered)',
      'packages/unmapped/src/index.ts:3:17  export function makeunmapped(options: Options): number {',
    ]);
    const references = await run('lsp_references', { symbol: 'makeunmapped' });
    expect(references.content.split('\n').slice(0, 5)).toEqual([
      '3 references to `makeunmapped` at packages/unmapped/src/index.ts:3:17:',
      '(1 more in build output or dependencies not considered)',
      "app/main.ts:2:10  import { makeunmapped } from 'unmapped';",
      'app/main.ts:4:47  export const both = makemapped({ size: 3 }) + makeunmapped({ size: 4 });',
      'packages/unmapped/src/index.ts:3:17  export function makeunmapped(options: Options): number {',
    ]);
    expect(references.content).toContain(
      '(1 reference in build output (dist/build/out, generated .d.ts) omitted; source is listed)',
    );
  });
});
