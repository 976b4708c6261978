// `spine --version` cold start against `node -e 0` (target: ≤ 3×). Each run is a fresh process.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = join(dirname(dirname(fileURLToPath(import.meta.url))), 'bin', 'spine.js');
const RUNS = 15;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(args: string[]): number {
  const start = performance.now();
  const result = spawnSync(process.execPath, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`);
  return performance.now() - start;
}

const baseline: number[] = [];
const spine: number[] = [];
for (let run = 0; run < RUNS; run++) {
  // Interleaved, so background load hits both alike.
  baseline.push(time(['-e', '0']));
  spine.push(time([bin, '--version']));
}
// For information: a command that loads the CLI itself (commander, configuration), from the
// build when it is fresh, else from sources through tsx.
const help: number[] = [];
for (let run = 0; run < 5; run++) help.push(time([bin, 'config']));
const helpMs = median(help);
console.log(
  `spine config (loads the CLI): median ${helpMs.toFixed(1)} ms over 5 runs (not a target)`,
);
const baselineMs = median(baseline);
const spineMs = median(spine);
const ratio = spineMs / baselineMs;
console.log(`node -e 0: median ${baselineMs.toFixed(1)} ms over ${RUNS} runs`);
console.log(`spine --version: median ${spineMs.toFixed(1)} ms over ${RUNS} runs`);
console.log(`ratio ${ratio.toFixed(2)} (target ≤ 3)`);
console.log(
  JSON.stringify({
    bench: 'cli/startup',
    nodeMs: Number(baselineMs.toFixed(1)),
    versionMs: Number(spineMs.toFixed(1)),
    ratio: Number(ratio.toFixed(2)),
    configCommandMs: Number(helpMs.toFixed(1)),
    target: 3,
    pass: ratio <= 3,
  }),
);
