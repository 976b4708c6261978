// Cold start of `spine` commands against `node -e 0`, each run a fresh process, interleaved so
// background load hits every command alike. Watched: `spine --version` (≤ 3×, answered by the
// bin alone), `spine --help` (≤ 3×, commander only), `spine config` (≤ 4.5×, configuration) and
// `spine sessions` on an empty session directory (≤ 4.5×, configuration, store, presentation).
// Before the harness entry was made cheap, config and sessions were 7-8× (they loaded the model
// clients, tool runtime and agent loop through `@spine/harness`/`@spine/tui`).
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  interleave,
  judge,
  medianTimes,
  printReport,
  ratioCheck,
} from '../../../scripts/lib/bench-interleave.js';

const app = dirname(dirname(fileURLToPath(import.meta.url)));
const bin = join(app, 'bin', 'spine.js');
// 41 rounds: with 21, beside another npm test (load 5), the 90% intervals of config's and
// sessions' 3.8 and 4.2 medians reached 4.56 and 4.65 (idle: 3.39 and 3.58).
const RUNS = 41;
const TARGETS = { version: 3, help: 3, config: 4.5, sessions: 4.5 };

// bin/spine.js runs sources through tsx when any build is stale: that would measure tsx.
const stale = staleBuilds();
if (stale.length) {
  console.log(
    `STALE BUILD (${stale.join(', ')}): spine runs from sources; build first with npx turbo run build --filter=@spine/cli...`,
  );
}

const scratch = mkdtempSync(join(tmpdir(), 'spine-bench-startup-'));
// An empty home and session directory: no configuration files, no sessions.
const env: NodeJS.ProcessEnv = {
  ...process.env,
  HOME: scratch,
  SPINE_SESSION_DIR: join(scratch, 'sessions'),
};
delete env.SPINE_STORE_URL;
delete env.XDG_CONFIG_HOME;

function time(args: string[]): number {
  const start = performance.now();
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', env, cwd: scratch });
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`);
  return performance.now() - start;
}

const commands = {
  version: ['--version'],
  help: ['--help'],
  config: ['config'],
  sessions: ['sessions'],
} as const;
type Name = keyof typeof commands;
// Interleaved round by round, the order rotating (scripts/lib/bench-interleave.ts); each ratio is
// the median of the per-round ratios to `node -e 0`, judged on its 90% interval.
let samples: Record<Name | 'node', number[]>;
try {
  samples = await interleave({
    sides: {
      node: () => time(['-e', '0']),
      version: () => time([bin, ...commands.version]),
      help: () => time([bin, ...commands.help]),
      config: () => time([bin, ...commands.config]),
      sessions: () => time([bin, ...commands.sessions]),
    },
    rounds: RUNS,
    gc: false,
  });
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const ms = medianTimes(samples);
console.log(`node -e 0: median ${ms.node.toFixed(1)} ms over ${RUNS} runs`);
const checks = (Object.keys(commands) as Name[]).map((name) =>
  ratioCheck(
    samples,
    name,
    'node',
    { atMost: TARGETS[name] },
    { name: `spine ${commands[name].join(' ')} ÷ node -e 0` },
  ),
);
if (stale.length > 0)
  checks.push(judge('built from the current sources (1 = yes)', [0], { atLeast: 1 }));
const ratio = (name: Name): number =>
  checks.find((check) => check.name.includes(commands[name].join(' ')))!.figure;
const round = (value: number, digits: number): number => Number(value.toFixed(digits));
printReport({
  bench: 'cli/startup',
  checks,
  figures: {
    nodeMs: round(ms.node, 1),
    versionMs: round(ms.version, 1),
    ratio: ratio('version'),
    helpMs: round(ms.help, 1),
    helpRatio: ratio('help'),
    configCommandMs: round(ms.config, 1),
    configRatio: ratio('config'),
    sessionsMs: round(ms.sessions, 1),
    sessionsRatio: ratio('sessions'),
    fromBuild: stale.length === 0,
    target: TARGETS.version,
    targets: TARGETS,
  },
});

/** The CLI and @spine/* packages whose build is older than a source file (bin/spine.js's test). */
function staleBuilds(): string[] {
  const require = createRequire(join(app, 'package.json'));
  const { dependencies } = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const dirs = [app];
  for (const name of Object.keys(dependencies)) {
    if (!name.startsWith('@spine/')) continue;
    const folder = require.resolve
      .paths(name)
      ?.find((path) => existsSync(join(path, name, 'package.json')));
    if (!folder) throw new Error(`${name} is not installed`);
    dirs.push(realpathSync(join(folder, name)));
  }
  return dirs.filter((dir) => {
    const entry = join(dir, 'dist', dir === app ? 'main.js' : 'index.js');
    if (!existsSync(entry)) return true;
    const src = join(dir, 'src');
    return existsSync(src) && newestMtime(src) > statSync(entry).mtimeMs;
  });
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}
