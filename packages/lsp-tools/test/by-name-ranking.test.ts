// By-name lookups on a workspace shaped like a monorepo, against the real
// typescript-language-server: when a test declares a helper with the name of a package's exported
// function, and the test's path sorts first, the exported source definition is still the one
// chosen; an exported definition also wins over a private one of the same name in source.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ToolDefinition, ToolExecutionContext } from '@spine/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLspManager, createLspTools, type LspManager } from '../src/index.js';

const FILES: Record<string, string> = {
  'package.json': '{ "name": "ranking-fixture", "private": true, "type": "module" }\n',
  'tsconfig.json': JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'NodeNext', strict: true, noEmit: true },
    include: ['apps', 'packages'],
  }),
  // Sorts before packages/: a test helper named like the package's export, and a test that uses it.
  'apps/cli/test/store.test.ts':
    "import { openStore as open } from '../../../packages/store/src/store.js';\n\nfunction openStore(name: string): string {\n  return open(name + '.db');\n}\n\nexport const made = openStore('x');\n",
  'apps/cli/src/names.ts':
    'function parseName(text: string): string {\n  return text.trim();\n}\n\nexport const name = parseName(" a ");\n',
  'packages/store/src/store.ts':
    'export function openStore(path: string): string {\n  return path;\n}\n',
  'packages/store/src/parse.ts':
    'export function parseName(text: string): string {\n  return text;\n}\n',
  'packages/store/test/only-here.test.ts':
    'export function onlyInTests(): number {\n  return 1;\n}\n',
};

let root: string;
let lsp: LspManager;
let definition: ToolDefinition;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'spine-lsp-rank-'));
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  lsp = createLspManager({ cwd: root });
  definition = createLspTools(lsp).find((tool) => tool.spec.name === 'lsp_definition')!;
  // Warm up: the first answer waits for the project to load.
  await lsp.definition(join(root, 'apps/cli/test/store.test.ts'), { line: 7, column: 20 });
}, 120_000);

afterAll(async () => {
  await lsp.shutdown();
  rmSync(root, { recursive: true, force: true });
});

async function byName(symbol: string): Promise<string> {
  const context: ToolExecutionContext = {
    callId: 'rank',
    signal: new AbortController().signal,
    cwd: root,
    sandbox: 'read-only',
  };
  const output = await definition.execute({ symbol }, context);
  expect(output.isError).toBeUndefined();
  // The first location line, `path:line:column  source text` (after a note when names repeat).
  const line = output.content.split('\n').find((each) => /^\S+:\d+:\d+ {2}/.test(each));
  return line?.split('  ')[0] ?? output.content;
}

describe('by-name definition lookups', () => {
  it("choose a package's exported source definition over a test helper of the same name", async () => {
    expect(await byName('openStore')).toBe('packages/store/src/store.ts:1:17');
  });

  it('choose an exported source definition over a private one of the same name', async () => {
    expect(await byName('parseName')).toBe('packages/store/src/parse.ts:1:17');
  });

  it('still find a name declared only in a test', async () => {
    expect(await byName('onlyInTests')).toBe('packages/store/test/only-here.test.ts:1:17');
  });
});
