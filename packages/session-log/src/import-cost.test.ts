import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `import '@spine/session-log'` must stay cheap (issue 16: ≤ 1.3× `node -e 0`, measured by
// bench/import.bench.ts and scripts/package-figures.mjs on the built package). The costly modules
// are zod (through the schemas of @spine/protocol's main entry), node:crypto and better-sqlite3:
// none of them may be imported statically from the main entry's module graph. Nor may node:fs:
// its ESM facade loads fs/promises and the streams (internal/fs.ts has the functions without it).
const here = dirname(fileURLToPath(import.meta.url));
const CHEAP = new Set(['@spine/protocol/core', 'node:path']);

/** The modules `file` loads at run time by static import, relative ones followed, by specifier. */
function staticImports(file: string, seen = new Set<string>()): Map<string, string> {
  const found = new Map<string, string>();
  if (seen.has(file)) return found;
  seen.add(file);
  const source = readFileSync(join(here, file), 'utf8');
  // `import type` / `export type` lines vanish at build time; `import('…')` calls load lazily.
  const pattern = /^(?:import|export)\s+(?!type\s)[^;]*?from\s+'([^']+)'/gms;
  for (const match of source.matchAll(pattern)) {
    const specifier = match[1]!;
    if (!specifier.startsWith('.')) {
      found.set(specifier, file);
      continue;
    }
    const target = join(dirname(file), specifier.replace(/\.js$/, '.ts'));
    for (const [inner, from] of staticImports(target, seen)) found.set(inner, from);
  }
  return found;
}

describe('the import graph of @spine/session-log', () => {
  it('statically loads only cheap modules: no zod, node:crypto, node:fs or better-sqlite3', () => {
    const imports = staticImports('index.ts');
    expect(imports.get('@spine/protocol/core')).toBeDefined();
    const costly = [...imports].filter(([specifier]) => !CHEAP.has(specifier));
    expect(costly.map(([specifier, from]) => `${specifier} (from ${from})`)).toEqual([]);
  });

  it('sees a costly import where there is one (the SQLite entry)', () => {
    const source = readFileSync(join(here, 'store-sqlite.ts'), 'utf8');
    expect(source).toContain("import('better-sqlite3')");
    expect([...staticImports('testing.ts').keys()]).toContain('node:util');
  });
});
