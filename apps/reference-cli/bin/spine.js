#!/usr/bin/env node
// Entry point of the `spine` binary. `--version` is answered here without loading anything
// else (cold start matters). Otherwise it runs the built CLI (dist/main.js) when it and every
// @spine/* package it imports are built and up to date, and falls back to the TypeScript sources
// through tsx (a fresh clone with no build, or a checkout whose sources changed since the build).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  process.stdout.write(`${version}\n`);
} else if (process.env.SPINE_FROM_SOURCE !== '1' && builtAndFresh()) {
  await import(pathToFileURL(join(root, 'dist', 'main.js')).href);
} else {
  // The repository root tsconfig maps @spine/* to packages/*/src, so sources run unbuilt.
  const repo = dirname(dirname(root));
  const { register } = await import('tsx/esm/api');
  register({ tsconfig: join(repo, 'tsconfig.json') });
  await import(pathToFileURL(join(root, 'src', 'main.ts')).href);
}

/** True when this package and its @spine/* dependencies are built, and no source is newer. */
function builtAndFresh() {
  const packages = [root];
  const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  for (const name of Object.keys(dependencies)) {
    if (!name.startsWith('@spine/')) continue;
    try {
      // …/<package>/dist/index.js → …/<package>
      packages.push(dirname(dirname(fileURLToPath(import.meta.resolve(name)))));
    } catch {
      return false;
    }
  }
  for (const dir of packages) {
    const entry = join(dir, 'dist', dir === root ? 'main.js' : 'index.js');
    if (!existsSync(entry)) return false;
    // Installed packages ship no src/; in a checkout, a source edited after the build wins.
    if (existsSync(join(dir, 'src')) && newestMtime(join(dir, 'src')) > statSync(entry).mtimeMs)
      return false;
  }
  return true;
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}
