#!/usr/bin/env node
// Entry point of the `spine` binary. `--version` is answered here without loading anything
// else (cold start matters). Otherwise it runs the built CLI (dist/main.js) when present, and
// falls back to the TypeScript sources through tsx from a fresh clone with no build.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  process.stdout.write(`${version}\n`);
} else {
  const built = join(root, 'dist', 'main.js');
  if (existsSync(built) && process.env.SPINE_FROM_SOURCE !== '1' && dependenciesBuilt()) {
    await import(pathToFileURL(built).href);
  } else {
    // The repository root tsconfig maps @spine/* to packages/*/src, so sources run unbuilt.
    const repo = dirname(dirname(root));
    const { register } = await import('tsx/esm/api');
    register({ tsconfig: join(repo, 'tsconfig.json') });
    await import(pathToFileURL(join(root, 'src', 'main.ts')).href);
  }
}

// The built CLI imports the built @spine/* packages; in a checkout where only some are built,
// run everything from sources instead of failing halfway through a command.
function dependenciesBuilt() {
  const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  for (const name of Object.keys(dependencies)) {
    if (!name.startsWith('@spine/')) continue;
    try {
      if (!existsSync(fileURLToPath(import.meta.resolve(name)))) return false;
    } catch {
      return false;
    }
  }
  return true;
}
