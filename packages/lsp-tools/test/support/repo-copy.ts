// Copies this repository (sources, tests, benchmarks, docs, configs; no node_modules, no build
// output) into a temporary folder for the language-server tests. node_modules is a folder of
// links to the real one, except @spine/*, which link to the copy's own packages, as npm
// workspaces would. Two packages get generated build output (dist/*.d.ts with declaration
// maps), so tests can check that answers stay in source.
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository this test file lives in. */
export const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url));

const SKIP = /\/(node_modules|dist|\.tsc|\.turbo|\.git|\.scratch[^/]*|coverage)(\/|$)/;

/** Writes `dist/<name>.d.ts` and `.d.ts.map` for every `src/*.ts` of a package. */
function buildDeclarations(packageDir: string): void {
  const source = join(packageDir, 'src');
  const out = join(packageDir, 'dist');
  mkdirSync(out, { recursive: true });
  for (const name of readdirSync(source)) {
    if (!name.endsWith('.ts') || name.endsWith('.test.ts') || name.endsWith('.d.ts')) continue;
    const text = readFileSync(join(source, name), 'utf8');
    const result = ts.transpileDeclaration(text, {
      fileName: name,
      compilerOptions: { declarationMap: true, module: ts.ModuleKind.NodeNext },
    });
    const base = name.replace(/\.ts$/, '');
    writeFileSync(
      join(out, `${base}.d.ts`),
      `${result.outputText.replace(/\/\/# sourceMappingURL=.*\n?$/, '')}//# sourceMappingURL=${base}.d.ts.map\n`,
    );
    const map = JSON.parse(result.sourceMapText ?? '{}') as { sources?: string[] };
    map.sources = [`../src/${name}`];
    writeFileSync(join(out, `${base}.d.ts.map`), JSON.stringify(map));
  }
}

/** Copies the repository into `target` and returns `target`. */
export function copyRepository(target: string, withBuildOutput: string[] = []): string {
  mkdirSync(target, { recursive: true });
  for (const file of readdirSync(REPOSITORY)) {
    if (/^(tsconfig.*\.json|package\.json)$/.test(file))
      cpSync(join(REPOSITORY, file), join(target, file));
  }
  for (const folder of ['packages', 'apps', 'docs', 'scripts']) {
    cpSync(join(REPOSITORY, folder), join(target, folder), {
      recursive: true,
      filter: (path) => !SKIP.test(path),
    });
  }
  const modules = join(target, 'node_modules');
  mkdirSync(join(modules, '@spine'), { recursive: true });
  for (const entry of readdirSync(join(REPOSITORY, 'node_modules'))) {
    if (entry === '@spine' || entry.startsWith('.')) continue;
    symlinkSync(join(REPOSITORY, 'node_modules', entry), join(modules, entry));
  }
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(target, group))) {
      const manifest = join(target, group, name, 'package.json');
      if (!existsSync(manifest)) continue;
      const packageName = (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name;
      if (packageName?.startsWith('@spine/'))
        symlinkSync(join(target, group, name), join(modules, packageName));
    }
  }
  for (const name of withBuildOutput) buildDeclarations(join(target, 'packages', name));
  return target;
}
