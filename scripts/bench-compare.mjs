#!/usr/bin/env node
// Side-by-side benchmark of two checkouts of this repository (before and after a change), so
// machine load affects both alike: the same benches run alternately in each tree (A B A B …),
// each figure is the median over the rounds of its tree, and the table shows the change.
//
//   node scripts/bench-compare.mjs --before <dir> --after <dir> [--rounds 3] [--only <substring>]
//     [--env NAME=VALUE …]
// --env sets a variable for every bench run of both trees: SPINE_BENCH_CHAIN=off (the step,
// append and open benches write without the tamper-evident chain) and SPINE_BENCH_SNAPSHOTS=off
// (the open and step benches write no automatic snapshots); a tree whose benches do not know
// one ignores it.
//
// Each tree needs its dependencies installed and its packages built (the benches import sibling
// packages from their dist). Example, comparing a past commit with HEAD:
//   git worktree add /tmp/before <commit> && (cd /tmp/before && npm ci && npx turbo run build)
//   node scripts/bench-compare.mjs --before /tmp/before --after .
// Exit 1 when a figure is more than --limit percent (default 5) worse after than before. The
// table also gives each change's 90% bootstrap interval over the rounds: on a shared 2-core
// machine one process's figure moves by several percent, so a change near the limit needs more
// rounds (with 30, the step figures' intervals are about ±3% wide), and separate runs still differ.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { bootstrap90, median } from './lib/stats.mjs';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: '.' },
    rounds: { type: 'string', default: '3' },
    limit: { type: 'string', default: '5' },
    only: { type: 'string', default: '' },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const extraEnv = Object.fromEntries(
  values.env.map((pair) => {
    const at = pair.indexOf('=');
    if (at <= 0) {
      console.error(`--env ${pair}: expected NAME=VALUE`);
      process.exit(2);
    }
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);
if (!values.before) {
  console.error('usage: node scripts/bench-compare.mjs --before <dir> --after <dir> [--rounds N]');
  process.exit(2);
}
const trees = { before: resolve(values.before), after: resolve(values.after) };
const rounds = Number(values.rounds);
const limit = Number(values.limit);

/**
 * The figures compared: bench file, the JSON key of its last line, a label, and whether a higher
 * value is better. Step vs raw POST at 100 and 10k messages, append, open and derive.
 */
const FIGURES = [
  [
    'packages/agent-loop/bench/step-overhead.bench.ts',
    'ratio100',
    'step / raw POST, 100 messages',
    false,
  ],
  [
    'packages/agent-loop/bench/step-overhead.bench.ts',
    'ratio10k',
    'step / raw POST, 10k messages',
    false,
  ],
  [
    'packages/agent-loop/bench/step-overhead.bench.ts',
    'buildMs100',
    'request build ms, 100 messages',
    false,
  ],
  [
    'packages/agent-loop/bench/step-overhead.bench.ts',
    'buildMs10k',
    'request build ms, 10k messages',
    false,
  ],
  ['packages/session-log/bench/append.bench.ts', 'spineEventsPerSecond', 'append events/s', true],
  [
    'packages/session-log/bench/append.bench.ts',
    'ratioToReadyLinesWriteSync',
    'append vs writeSync of ready lines',
    true,
  ],
  ['packages/session-log/bench/open.bench.ts', 'openMs', 'open 100k events ms', false],
  ['packages/session-log/bench/open.bench.ts', 'openRatio', 'open / read+parse', false],
  [
    'packages/session-log/bench/open.bench.ts',
    'derive1kMicros',
    'derive after append µs, 1k',
    false,
  ],
  [
    'packages/session-log/bench/open.bench.ts',
    'derive100kMicros',
    'derive after append µs, 100k',
    false,
  ],
];
const figures = FIGURES.filter(([file]) => file.includes(values.only));
const benches = [...new Set(figures.map(([file]) => file))];
for (const [name, dir] of Object.entries(trees)) {
  for (const file of benches) {
    if (!existsSync(join(dir, file))) {
      console.error(`${name} tree ${dir} has no ${file}`);
      process.exit(2);
    }
  }
}

/** Runs one bench in one tree and returns the JSON object of its last stdout line. */
function runBench(dir, file) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', file], {
    cwd: dir,
    env: { ...process.env, ...extraEnv },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const last = (run.stdout ?? '').trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last);
  } catch {
    throw new Error(`${file} in ${dir} printed no JSON (exit ${run.status}):\n${run.stderr}`);
  }
}

const samples = { before: {}, after: {} };
for (let round = 0; round < rounds; round++) {
  // Alternate which tree goes first, so neither always runs on the warmer machine.
  const order = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
  for (const file of benches) {
    for (const tree of order) {
      const started = Date.now();
      const figures = runBench(trees[tree], file);
      for (const [key, value] of Object.entries(figures)) {
        if (typeof value !== 'number') continue;
        samples[tree][`${file}#${key}`] ??= [];
        samples[tree][`${file}#${key}`].push(value);
      }
      console.error(
        `round ${round + 1}/${rounds} ${tree.padEnd(6)} ${file} (${((Date.now() - started) / 1000).toFixed(0)} s)`,
      );
    }
  }
}

/**
 * The 90% bootstrap interval of the change in percent: both trees' rounds resampled with
 * replacement 2,000 times, the change of medians taken each time. How far the table's change
 * could move on this machine with the same code; a figure whose interval straddles the limit is
 * not settled by this many rounds.
 */
function changeInterval(before, after) {
  const change = (b, a) => {
    const base = median(b);
    return ((median(a) - base) / base) * 100;
  };
  return bootstrap90([before, after], change, before.length * 7919 + after.length);
}

const rows = figures.map(([file, key, label, higherIsBetter]) => {
  const beforeSamples = samples.before[`${file}#${key}`] ?? [Number.NaN];
  const afterSamples = samples.after[`${file}#${key}`] ?? [Number.NaN];
  const before = median(beforeSamples);
  const after = median(afterSamples);
  const change = ((after - before) / before) * 100;
  const worse = higherIsBetter ? -change : change;
  const [low, high] = changeInterval(beforeSamples, afterSamples);
  return {
    figure: label,
    key,
    before,
    after,
    changePercent: +change.toFixed(1),
    interval90: [+low.toFixed(1), +high.toFixed(1)],
    ok: worse <= limit,
  };
});

const format = (value) =>
  Math.abs(value) >= 100 ? Math.round(value).toString() : value.toFixed(3);
const lines = [
  `| figure | before | after | change | 90% interval | within ${limit}% |`,
  '| --- | ---: | ---: | ---: | ---: | --- |',
  ...rows.map(
    (row) =>
      `| ${row.figure} | ${format(row.before)} | ${format(row.after)} | ${row.changePercent > 0 ? '+' : ''}${row.changePercent}% | ${row.interval90[0]}…${row.interval90[1]}% | ${row.ok ? 'yes' : 'NO'} |`,
  ),
];
console.log(
  `medians of ${rounds} alternating rounds per tree${values.env.length ? ` (${values.env.join(' ')})` : ''}\n`,
);
console.log(lines.join('\n'));
const pass = rows.every((row) => row.ok);
console.log(
  JSON.stringify({ bench: 'compare', rounds, limitPercent: limit, env: extraEnv, rows, pass }),
);
process.exit(pass ? 0 : 1);
