#!/usr/bin/env node
// Runs every benchmark (`packages/*/bench/*.bench.ts`, `apps/*/bench/*.bench.ts`) one after
// another with tsx, prints one pass/fail line per benchmark (its name, each judged figure with its
// 90% interval and target, the load average it ran at) at the end, and a JSON object with all their
// figures on the last line. Exits 1 when a benchmark falls short (or fails to run), else 0.
// Usage: npm run bench [-- <substring filter>] [--quiet]
//
// A benchmark that compares against a baseline interleaves both in one process round by round
// (scripts/lib/bench-interleave.ts) and lists its judged figures under `checks` in its last JSON
// line; `pass` is the benchmark's own verdict either way.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';

const quiet = process.argv.includes('--quiet');
const filter = process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? '';
const files = [];
for (const group of ['packages', 'apps']) {
  for (const name of readdirSync(group).sort()) {
    const dir = join(group, name, 'bench');
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).sort()) {
      const path = join(dir, file);
      if (file.endsWith('.bench.ts') && path.includes(filter)) files.push(path);
    }
  }
}

/** `name figure [low, high] <= target` for each judged figure, or the plain verdict. */
function describe(figures) {
  if (figures.error) return figures.error;
  if (Array.isArray(figures.checks) && figures.checks.length > 0)
    return figures.checks
      .map((check) => {
        const [low, high] = check.interval ?? [];
        const interval = low === undefined ? '' : ` [${low}, ${high}]`;
        return `${check.pass ? '' : '✗ '}${check.name} ${check.figure}${interval} ${check.target}`;
      })
      .join('; ');
  // Benchmarks without an interleaved baseline: their ratio or median and target, if named.
  const figure = figures.medianRatio ?? figures.ratio ?? figures.median ?? figures.medianMs;
  const target = figures.target ?? figures.targets ?? figures.targetMs;
  const parts = [];
  if (figure !== undefined) parts.push(`figure ${figure}`);
  if (target !== undefined) parts.push(`target ${JSON.stringify(target)}`);
  return parts.length > 0 ? parts.join(', ') : 'no judged figure';
}

// The CLI benchmarks start the built `spine`, which falls back to the sources when dist/ is not
// current: build first (a second or two when turbo's cache already holds it).
const build = spawnSync('npm', ['run', 'build', '--silent'], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (build.status !== 0) {
  console.error(`npm run build failed (exit ${build.status ?? build.signal})`);
  process.exit(1);
}

const results = {};
const lines = [];
let failed = false;
for (const file of files) {
  const loadBefore = loadavg()[0];
  const started = performance.now();
  console.log(`bench: ${file}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', file], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const out = (run.stdout ?? '').trim().split('\n');
  if (!quiet) for (const line of out.slice(0, -1)) console.log(`  ${line}`);
  let figures;
  try {
    figures = JSON.parse(out.at(-1) ?? '');
  } catch {
    figures = { error: `no JSON on the last line (exit ${run.status ?? run.signal})` };
  }
  const pass = run.status === 0 && figures.pass !== false && !figures.error;
  if (!pass) failed = true;
  const load = [loadBefore, loadavg()[0]].map((value) => value.toFixed(1)).join('→');
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  const line = `${pass ? 'PASS' : 'FAIL'} ${figures.bench ?? file}: ${describe(figures)} (load ${load}, ${seconds} s)`;
  lines.push(line);
  console.log(`  ${line}`);
  results[figures.bench ?? file] = { ...figures, load: loadavg()[0], pass };
}
console.log(
  `\n${lines.length} benchmarks, ${lines.filter((line) => line.startsWith('FAIL')).length} failed:`,
);
for (const line of lines) console.log(line);
console.log(JSON.stringify({ benchmarks: results, pass: !failed }));
process.exit(failed ? 1 : 0);
