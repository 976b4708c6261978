#!/usr/bin/env node
// Runs every benchmark (`packages/*/bench/*.bench.ts`, `apps/*/bench/*.bench.ts`) one after
// another with tsx, and prints one JSON object with all their figures on the last line.
// Usage: npm run bench [-- <substring filter>]
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const filter = process.argv[2] ?? '';
const files = [];
for (const group of ['packages', 'apps']) {
  for (const name of readdirSync(group)) {
    const dir = join(group, name, 'bench');
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).sort()) {
      const path = join(dir, file);
      if (file.endsWith('.bench.ts') && path.includes(filter)) files.push(path);
    }
  }
}

const results = {};
let failed = false;
for (const file of files) {
  console.log(`bench: ${file}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', file], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const lines = (run.stdout ?? '').trim().split('\n');
  for (const line of lines.slice(0, -1)) console.log(`  ${line}`);
  let figures;
  try {
    figures = JSON.parse(lines.at(-1) ?? '');
  } catch {
    figures = { error: `no JSON on the last line (exit ${run.status})` };
  }
  if (run.status !== 0 || figures.pass === false) failed = true;
  results[figures.bench ?? file] = figures;
  console.log(`  ${JSON.stringify(figures)}`);
}
console.log(JSON.stringify({ benchmarks: results, pass: !failed }));
process.exit(failed ? 1 : 0);
