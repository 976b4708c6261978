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

const app = dirname(dirname(fileURLToPath(import.meta.url)));
const bin = join(app, 'bin', 'spine.js');
const RUNS = 15;
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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

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
const samples: Record<Name | 'node', number[]> = {
  node: [],
  version: [],
  help: [],
  config: [],
  sessions: [],
};
try {
  for (let run = 0; run < RUNS; run++) {
    samples.node.push(time(['-e', '0']));
    for (const name of Object.keys(commands) as Name[])
      samples[name].push(time([bin, ...commands[name]]));
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const nodeMs = median(samples.node);
const ms = {} as Record<Name, number>;
const ratios = {} as Record<Name, number>;
console.log(`node -e 0: median ${nodeMs.toFixed(1)} ms over ${RUNS} runs`);
for (const name of Object.keys(commands) as Name[]) {
  ms[name] = median(samples[name]);
  ratios[name] = ms[name] / nodeMs;
  console.log(
    `spine ${commands[name].join(' ')}: median ${ms[name].toFixed(1)} ms, ratio ${ratios[name].toFixed(2)} (target ≤ ${TARGETS[name]})`,
  );
}
const round = (value: number, digits: number): number => Number(value.toFixed(digits));
const pass =
  stale.length === 0 && (Object.keys(commands) as Name[]).every((n) => ratios[n] <= TARGETS[n]);
console.log(
  JSON.stringify({
    bench: 'cli/startup',
    nodeMs: round(nodeMs, 1),
    versionMs: round(ms.version, 1),
    ratio: round(ratios.version, 2),
    helpMs: round(ms.help, 1),
    helpRatio: round(ratios.help, 2),
    configCommandMs: round(ms.config, 1),
    configRatio: round(ratios.config, 2),
    sessionsMs: round(ms.sessions, 1),
    sessionsRatio: round(ratios.sessions, 2),
    fromBuild: stale.length === 0,
    target: TARGETS.version,
    targets: TARGETS,
    pass,
  }),
);

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
