import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'spine-no-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the sqlite subpath without better-sqlite3 installed', () => {
  it('fails with StoreUnavailableError telling how to fix it', async () => {
    // A bundle run from a directory with no node_modules: better-sqlite3 truly cannot be found.
    const entry = join(dir, 'entry.ts');
    const source = fileURLToPath(new URL('../src/sqlite.ts', import.meta.url));
    writeFileSync(
      entry,
      `import { createSqliteStore } from ${JSON.stringify(source)};
const store = createSqliteStore({ path: ${JSON.stringify(join(dir, 'x.db'))} });
store.list().then(() => console.log('loaded'), (error) => console.log(JSON.stringify({ code: error.code, name: error.name, message: error.message })));
`,
    );
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: join(dir, 'entry.mjs'),
      external: ['better-sqlite3'],
      logLevel: 'error',
      tsconfig: fileURLToPath(new URL('../../../tsconfig.json', import.meta.url)),
    });
    const run = spawnSync(process.execPath, [join(dir, 'entry.mjs')], {
      cwd: dir,
      encoding: 'utf8',
    });
    const result = JSON.parse(run.stdout.trim());
    expect(result.code).toBe('STORE_UNAVAILABLE');
    expect(result.name).toBe('StoreUnavailableError');
    expect(result.message).toContain('npm i better-sqlite3');
    expect(result.message).toContain('jsonl store');
  });
});
