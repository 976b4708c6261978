// grep (RE2) over this repository's own tree, pattern by pattern, in the same run: the pure-JS path
// (`ripgrepPath: null`), the default path (rg as a prefilter when `rg` is installed) and ripgrep
// itself on the same patterns. The two grep paths must give identical output. Without rg there is
// no external reference: the baseline is the bare walk (list, stat, read and split every file the
// tool would search, no matching). Each figure is the median of ROUNDS runs; the judged ratio
// (grep ÷ rg over all patterns) is the median of the per-round ratios, its 90% interval judged
// (scripts/lib/bench-interleave.ts): grep and rg run pattern by pattern in the same round, the
// order alternating, so a busy machine slows both alike.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { judge, printReport } from '../../../scripts/lib/bench-interleave.js';
import { createGrepTool, createToolRuntime, nodeWorkspaceFs } from '../src/index.js';
import { looksBinary } from '../src/internal/tool-support.js';
import { walkWorkspace } from '../src/internal/walk.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
// 21 rounds (~80 s): with 9 the 90% interval of a 1.90 median reached 2.05.
const ROUNDS = 21;
const PATTERNS = [
  'createToolRuntime',
  'function\\s+\\w+\\(',
  '^import .* from',
  '[A-Z]{3,}_[A-Z_]+',
  'TODO|FIXME|XXX',
  '(a+)+$',
  'zzqqzz-not-found',
];

const runtimeWith = (ripgrepPath: string | null | undefined) =>
  createToolRuntime({
    cwd: ROOT,
    approval: 'never-ask',
    sandboxBackend: null,
    tools: [createGrepTool({ cwd: ROOT, timeoutMs: 120_000, ripgrepPath })],
  });
const jsRuntime = runtimeWith(null);
const defaultRuntime = runtimeWith(undefined);
let id = 0;
async function grepOnce(
  runtime: ReturnType<typeof runtimeWith>,
  pattern: string,
): Promise<{ ms: number; matches: number; content: string }> {
  const started = performance.now();
  const [result] = await runtime.run([
    {
      type: 'tool-call',
      id: `g${++id}`,
      name: 'grep',
      arguments: JSON.stringify({ pattern, maxMatches: 1000 }),
    },
  ]);
  if (result!.outcome !== 'ok') throw new Error(`grep ${pattern}: ${result!.content}`);
  return {
    ms: performance.now() - started,
    matches: Number(result!.meta?.matches ?? 0),
    content: result!.content,
  };
}

async function walkOnce(): Promise<{ ms: number; files: number; bytes: number }> {
  const started = performance.now();
  let files = 0;
  let bytes = 0;
  for await (const entry of walkWorkspace({ fs: nodeWorkspaceFs, root: ROOT, start: ROOT })) {
    if (entry.isDirectory) continue;
    const stats = await nodeWorkspaceFs.stat(entry.absolute);
    if (stats.size > 2 * 1024 * 1024) continue;
    const buffer = await nodeWorkspaceFs.readFile(entry.absolute);
    if (looksBinary(buffer)) continue;
    buffer.toString('utf8').split('\n');
    files++;
    bytes += buffer.length;
  }
  return { ms: performance.now() - started, files, bytes };
}

const rgPresent = spawnSync('rg', ['--version'], { encoding: 'utf8' }).status === 0;
function rgOnce(pattern: string): number {
  const started = performance.now();
  const run = spawnSync('rg', ['-n', '--no-messages', '-e', pattern, '.'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.status !== 0 && run.status !== 1) throw new Error(`rg ${pattern}: ${run.stderr}`);
  return performance.now() - started;
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const walks: number[] = [];
let corpus = { files: 0, bytes: 0 };
const runs = new Map<string, { js: number[]; grep: number[]; rg: number[]; matches: number }>();
for (const pattern of PATTERNS) runs.set(pattern, { js: [], grep: [], rg: [], matches: 0 });
// Warm-up: the first search pays for loading RE2 and locating rg.
await grepOnce(jsRuntime, 'warm-up');
await grepOnce(defaultRuntime, 'warm-up');
for (let round = 0; round < ROUNDS; round++) {
  const walked = await walkOnce();
  walks.push(walked.ms);
  corpus = { files: walked.files, bytes: walked.bytes };
  for (const pattern of PATTERNS) {
    const entry = runs.get(pattern)!;
    // rg before the grep pair on odd rounds, after it on even ones.
    const rgFirst = rgPresent && round % 2 === 1 ? rgOnce(pattern) : undefined;
    let js = await grepOnce(jsRuntime, pattern);
    let grep = await grepOnce(defaultRuntime, pattern);
    // The tree is a live checkout: a file edited between the two searches changes the output, so
    // a difference is checked again on a second pair; only a lasting one is an error.
    for (let retry = 0; grep.content !== js.content && retry < 2; retry++) {
      console.log(
        `${pattern}: outputs differ (tree changed between the searches?); searching again`,
      );
      js = await grepOnce(jsRuntime, pattern);
      grep = await grepOnce(defaultRuntime, pattern);
    }
    if (grep.content !== js.content)
      throw new Error(`grep ${pattern}: the rg-assisted output differs from the JS path's`);
    entry.js.push(js.ms);
    entry.grep.push(grep.ms);
    entry.matches = grep.matches;
    if (rgPresent) entry.rg.push(rgFirst ?? rgOnce(pattern));
  }
  console.log(
    `round ${round + 1}/${ROUNDS}: walk ${walked.ms.toFixed(0)} ms over ${walked.files} files`,
  );
}
type Figure = { jsMs: number; grepMs: number; matches: number; rgMs?: number };
const figures: Record<string, Figure> = {};
let jsTotal = 0;
let grepTotal = 0;
for (const [pattern, entry] of runs) {
  const figure: Figure = {
    jsMs: Number(median(entry.js).toFixed(1)),
    grepMs: Number(median(entry.grep).toFixed(1)),
    matches: entry.matches,
  };
  jsTotal += figure.jsMs;
  grepTotal += figure.grepMs;
  if (rgPresent) {
    figure.rgMs = Number(median(entry.rg).toFixed(1));
  }
  figures[pattern] = figure;
  console.log(
    `${pattern}: JS path ${figure.jsMs} ms, grep ${figure.grepMs} ms (${figure.matches} matches)${figure.rgMs === undefined ? '' : `, rg ${figure.rgMs} ms (${(figure.grepMs / figure.rgMs).toFixed(2)}x)`}`,
  );
}
const walkMs = Number(median(walks).toFixed(1));
const perPattern = grepTotal / PATTERNS.length;
const sumOfRound = (key: 'grep' | 'js' | 'rg', round: number): number =>
  [...runs.values()].reduce((sum, entry) => sum + entry[key][round]!, 0);
const perRound = (key: 'grep' | 'js'): number[] =>
  walks.map((_, round) => sumOfRound(key, round) / sumOfRound('rg', round));
const checks = rgPresent ? [judge('grep ÷ ripgrep', perRound('grep'), { atMost: 2 })] : [];
printReport({
  bench: 'tool-runtime/grep',
  checks,
  figures: {
    files: corpus.files,
    bytes: corpus.bytes,
    walkMs,
    grepMsPerPattern: Number(perPattern.toFixed(1)),
    jsPathMsPerPattern: Number((jsTotal / PATTERNS.length).toFixed(1)),
    vsBareWalk: Number((perPattern / walkMs).toFixed(2)),
    patterns: figures,
    ...(rgPresent
      ? {
          vsRipgrep: checks[0]!.figure,
          vsRipgrep90: checks[0]!.interval,
          jsPathVsRipgrep: judge('JS path ÷ ripgrep', perRound('js'), { atLeast: 0 }).figure,
          target: 2,
        }
      : { ripgrep: 'not installed; absolute figures and the bare-walk baseline only' }),
  },
});
