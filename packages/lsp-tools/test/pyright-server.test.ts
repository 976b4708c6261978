// pyright (the devDependency) on a generated 60-module Python project, checked against
// Python's own `ast` walk; files created and renamed by shell commands reach results and
// diagnostics (the client watches the workspace and sends didChangeWatchedFiles). The 2 s
// target is measured by bench/pyright-watch.bench.ts; here the bound is generous, since this
// file may share two cores with other language servers.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLspManager,
  createPyrightServer,
  type LspLocation,
  type LspManager,
} from '../src/index.js';
import { pythonReferences, writePythonProject } from './support/python-project.js';

const pyright = fileURLToPath(
  new URL('../../../node_modules/.bin/pyright-langserver', import.meta.url),
);
let root: string;
let lsp: LspManager;
const MODULES = 60;
// Without file watching these changes are never seen (pyright does not watch by itself).
const SEEN_WITHIN_MS = 10_000;

const at = (location: LspLocation): string =>
  `${relative(root, location.path)}:${location.line}:${location.column}`;
const parse = (where: string) => {
  const [path, line, column] = where.split(':');
  return { path: path!, position: { line: Number(line), column: Number(column) } };
};
const shell = (command: string): void => {
  execFileSync('sh', ['-c', command], { cwd: root });
};

/** Polls `probe` until it returns true; the time it took, or throws after `limitMs`. */
async function within(limitMs: number, probe: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await probe()) return performance.now() - started;
    if (performance.now() - started > limitMs) throw new Error(`not seen within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'spine-lsp-py-'));
  writePythonProject(root, MODULES);
  lsp = createLspManager({
    cwd: root,
    servers: [createPyrightServer({ command: pyright })],
    diagnosticsQuietMs: 200,
  });
});

afterAll(async () => {
  await lsp?.shutdown();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('pyright on a generated project', () => {
  const names = ['func_00', 'func_10', 'func_31', 'Widget05', 'Widget44', 'grow_20', 'grow_58'];

  it('the first answers after a cold start are complete: references equal the ast walk', async () => {
    const truth = pythonReferences(root, names);
    for (const name of names) {
      const expected = [...new Set(truth[name])].sort();
      expect(expected.length, name).toBeGreaterThan(1);
      const declaration = expected.find((where) =>
        where.startsWith(`app/mod_${name.slice(-2)}.py`),
      )!;
      const { path, position } = parse(declaration);
      const found = (await lsp.references(path, position)).map(at).sort();
      expect(found, name).toEqual(expected);
    }
    expect(lsp.coverage('python')).toMatchObject({ projects: ['pyproject.toml'], partial: false });
  });

  it('finds definitions by position and incoming calls across modules', async () => {
    const references = pythonReferences(root, ['func_11']).func_11!;
    const declaration = references.find((where) => where.startsWith('app/mod_11.py'))!;
    // Call sites: references followed by an opening parenthesis.
    const calls = references.filter((where) => {
      if (where === declaration) return false;
      const { path, position } = parse(where);
      const line = readFileSync(join(root, path), 'utf8').split('\n')[position.line - 1]!;
      return line[position.column - 1 + 'func_11'.length] === '(';
    });
    expect(calls.length).toBeGreaterThanOrEqual(3);
    const use = calls.find((where) => where.startsWith('app/mod_12.py'))!;
    expect((await lsp.definition(parse(use).path, parse(use).position)).map(at)).toEqual([
      declaration,
    ]);
    const [hierarchy] = await lsp.callHierarchy(
      parse(declaration).path,
      parse(declaration).position,
    );
    const callers = hierarchy!.incoming.flatMap((call) => call.callSites.map(at)).sort();
    expect(callers).toEqual(calls.sort());
  });

  it('sees a file created by a shell command', async () => {
    const declaration = parse(
      pythonReferences(root, ['func_00']).func_00!.find((where) =>
        where.startsWith('app/mod_00.py'),
      )!,
    );
    await lsp.references(declaration.path, declaration.position);
    shell(
      "printf 'from app.mod_00 import func_00\\n\\n\\ndef brand_new() -> int:\\n    return func_00(7)\\n' > app/created.py",
    );
    const took = await within(SEEN_WITHIN_MS, async () =>
      (await lsp.references(declaration.path, declaration.position))
        .map(at)
        .includes('app/created.py:5:12'),
    );
    console.log(`created file seen after ${Math.round(took)} ms`);
  });

  it('reflects a shell rename in the diagnostics of a dependent file', async () => {
    expect(await lsp.diagnostics('app/mod_21.py')).toEqual([]);
    shell('mv app/mod_20.py app/mod_20_renamed.py');
    const took = await within(SEEN_WITHIN_MS, async () =>
      (await lsp.diagnostics('app/mod_21.py')).some((each) =>
        each.message.includes('"app.mod_20" could not be resolved'),
      ),
    );
    console.log(`rename reflected after ${Math.round(took)} ms`);
    shell('mv app/mod_20_renamed.py app/mod_20.py');
    await within(SEEN_WITHIN_MS, async () => (await lsp.diagnostics('app/mod_21.py')).length === 0);
  });
});
