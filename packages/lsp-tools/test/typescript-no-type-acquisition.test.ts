import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLspManager, createTypescriptServer } from '../src/index.js';

// tsserver's automatic type acquisition installs @types packages with npm into a cache under
// the user's home for every untyped import of a JavaScript project: network and files nobody
// asked for. The TypeScript server config turns it off.
const root = mkdtempSync(join(tmpdir(), 'spine-lsp-ata-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('typescript-language-server without automatic type acquisition', () => {
  it('answers on a JavaScript project with untyped imports and leaves the home folder empty', async () => {
    const home = join(root, 'home');
    const workspace = join(root, 'project');
    mkdirSync(home);
    mkdirSync(workspace);
    writeFileSync(join(workspace, 'package.json'), '{"name":"p","dependencies":{"lodash":"4"}}\n');
    writeFileSync(join(workspace, 'jsconfig.json'), '{"compilerOptions":{"checkJs":true}}\n');
    writeFileSync(
      join(workspace, 'main.js'),
      "import _ from 'lodash';\nimport express from 'express';\nexport const x = _.chunk([1, 2], 1);\nexpress();\n",
    );
    const server = createTypescriptServer();
    const env = {
      HOME: home,
      XDG_CACHE_HOME: join(home, '.cache'),
      npm_config_cache: join(home, '.npm'),
    };
    const lsp = createLspManager({ cwd: workspace, servers: [{ ...server, env }] });
    try {
      const diagnostics = await lsp.diagnostics('main.js');
      // Untyped imports of uninstalled packages are reported, not fetched.
      expect(Array.isArray(diagnostics)).toBe(true);
      // Type acquisition starts once the project is loaded; give it time to show itself.
      await new Promise((resolve) => setTimeout(resolve, 4000));
      await lsp.definition('main.js', { line: 3, column: 14 });
    } finally {
      await lsp.shutdown();
    }
    expect(readdirSync(home)).toEqual([]);
    expect(existsSync(join(home, '.cache', 'typescript'))).toBe(false);
  }, 120_000);
});
