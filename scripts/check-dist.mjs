#!/usr/bin/env node
// After `turbo run build`: every published package's dist imports only its declared
// dependencies and Node built-ins (so `npm i @spine/session-log` never pulls in undici),
// and every entry point it exports loads.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
const problems = [];
const requireFrom = createRequire(import.meta.url);
let checked = 0;

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

for (const group of ['packages', 'apps']) {
  for (const dir of readdirSync(group)) {
    const root = join(group, dir);
    const pkgPath = join(root, 'package.json');
    if (!existsSync(pkgPath)) continue;
    const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
    if (pkg.private) continue;
    const dist = join(root, 'dist');
    if (!existsSync(dist)) {
      problems.push(`${pkg.name}: no dist/ (run npm run build)`);
      continue;
    }
    const allowed = new Set([
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}),
    ]);
    for (const file of readdirSync(dist, { recursive: true })) {
      if (!/\.c?js$/.test(String(file))) continue;
      const text = readFileSync(join(dist, String(file)), 'utf8');
      for (const match of text.matchAll(
        /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)['"]((?:@[\w.-]+\/)?[\w-][\w.-]*(?:\/[\w./-]+)?|node:[\w/]+)['"]/g,
      )) {
        // A match inside a line comment (bundled code keeps its comments) is no import.
        const lineStart = text.lastIndexOf('\n', match.index) + 1;
        if (/^\s*(?:\/\/|\*)/.test(text.slice(lineStart, match.index))) continue;
        const name = packageName(match[1]);
        if (!builtins.has(match[1]) && !builtins.has(name) && !allowed.has(name)) {
          problems.push(
            `${pkg.name}: dist/${file} imports '${match[1]}', which is not a dependency`,
          );
        }
      }
    }
    // Every entry point loads: the main one and each subpath (`./sqlite`, `./testing`, …).
    // Each condition is either a path or `{ types, default }`; `require` entries load through
    // `require()` so the CommonJS build is checked as well as the ES module one.
    const target = (condition) => (typeof condition === 'string' ? condition : condition?.default);
    const entries = pkg.exports
      ? Object.values(pkg.exports).flatMap((value) =>
          typeof value === 'string'
            ? [{ kind: 'import', file: value }]
            : [
                { kind: 'import', file: target(value?.import) },
                { kind: 'require', file: target(value?.require) },
              ],
        )
      : [{ kind: 'import', file: pkg.main }];
    for (const { kind, file } of entries) {
      if (typeof file !== 'string') continue;
      try {
        if (kind === 'require') requireFrom(resolve(root, file));
        else await import(pathToFileURL(resolve(root, file)).href);
      } catch (error) {
        problems.push(`${pkg.name}: ${kind} of ${file} failed: ${error.message}`);
      }
    }
    checked++;
  }
}
if (problems.length) {
  for (const problem of problems) console.error(`check-dist: ${problem}`);
  process.exit(1);
}
console.log(`check-dist: ${checked} packages import only their declared dependencies and load`);
