#!/usr/bin/env node
// Figures an adopter sees, from the packed tarballs (run after `turbo run build`):
// for each published package installed alone into a fresh project outside the repository (plus
// the tarballs of its @spine/* dependencies; registry dependencies from the npm registry), the
// install time, the size of node_modules, and the cold `import` time against `node -e 0`
// (median of 15 runs each, alternating with `node -e 0` in the same run). Prints a table, then one JSON object.
// `--only <name>[,<name>…]` measures those packages alone (e.g. `--only @spine/cli`).
// Issue 16's target: `@spine/session-log` alone imports in ≤ 1.3× `node -e 0` (`pass` in the JSON;
// the script exits 1 when it is measured and misses). `@spine/protocol/core`, the zod-free entry
// session-log loads, is measured with @spine/protocol's row (`coreImportRatio`).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { packPublished } from './lib/pack.mjs';

const repo = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'spine-figures-'));
const tarballs = join(work, 'tarballs');
mkdirSync(tarballs);
const RUNS = 15;
const SESSION_LOG_TARGET = 1.3;
const onlyIndex = process.argv.indexOf('--only');
const only = onlyIndex >= 0 ? new Set(process.argv[onlyIndex + 1]?.split(',')) : undefined;

const packages = new Map();
for (const { pkg, tarball } of packPublished(repo, tarballs))
  packages.set(pkg.name, { pkg, tarball });

/** The package and every @spine/* package it depends on, transitively. */
function closure(name, seen = new Set()) {
  if (seen.has(name)) return seen;
  seen.add(name);
  for (const dep of Object.keys(packages.get(name).pkg.dependencies ?? {})) {
    if (packages.has(dep)) closure(dep, seen);
  }
  return seen;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function timeOnce(args, cwd) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { cwd, stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed in ${cwd}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/**
 * Median wall time of `node -e 0` and of `args`, run alternately (so a load spike on a shared
 * machine hits both), after one unmeasured warm-up of each.
 */
function timeAgainstBaseline(args, cwd) {
  const baseline = [];
  const cold = [];
  timeOnce(['-e', '0'], cwd);
  timeOnce(args, cwd);
  for (let i = 0; i < RUNS; i++) {
    baseline.push(timeOnce(['-e', '0'], cwd));
    cold.push(timeOnce(args, cwd));
  }
  return { baseline: median(baseline), cold: median(cold) };
}

const rows = [];
for (const name of packages.keys()) {
  if (only && !only.has(name)) continue;
  const dir = join(work, name.replace('/', '+'));
  mkdirSync(dir);
  const dependencies = Object.fromEntries(
    [...closure(name)].map((dep) => [dep, `file:${packages.get(dep).tarball}`]),
  );
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'figures', private: true, dependencies }),
  );
  const started = performance.now();
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir });
  const installSeconds = (performance.now() - started) / 1000;
  const kb = Number.parseInt(
    execFileSync('du', ['-sk', 'node_modules'], { cwd: dir, encoding: 'utf8' }),
    10,
  );
  const { baseline, cold } = timeAgainstBaseline(
    ['--input-type=module', '-e', `await import(${JSON.stringify(name)})`],
    dir,
  );
  const row = {
    name,
    installSeconds: Number(installSeconds.toFixed(1)),
    nodeModulesMB: Number((kb / 1024).toFixed(1)),
    importMs: Number(cold.toFixed(1)),
    baselineMs: Number(baseline.toFixed(1)),
    importRatio: Number((cold / baseline).toFixed(2)),
  };
  if (name === '@spine/protocol') {
    const core = timeAgainstBaseline(
      ['--input-type=module', '-e', `await import('@spine/protocol/core')`],
      dir,
    );
    row.coreImportRatio = Number((core.cold / core.baseline).toFixed(2));
  }
  rows.push(row);
}
rmSync(work, { recursive: true, force: true });
for (const row of rows) {
  console.log(
    `${row.name.padEnd(22)} install ${String(row.installSeconds).padStart(5)} s  node_modules ${String(row.nodeModulesMB).padStart(6)} MB  import ${String(row.importMs).padStart(6)} ms = ${row.importRatio}x node -e 0`,
  );
}
const sessionLog = rows.find((row) => row.name === '@spine/session-log');
const pass = sessionLog ? sessionLog.importRatio <= SESSION_LOG_TARGET : undefined;
console.log(
  JSON.stringify({
    bench: 'package-figures',
    runs: RUNS,
    packages: rows,
    target: `@spine/session-log importRatio <= ${SESSION_LOG_TARGET}`,
    pass,
  }),
);
if (pass === false) process.exitCode = 1;
