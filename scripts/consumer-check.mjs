#!/usr/bin/env node
// Installs the packed packages as an adopter would and uses them from outside the repository.
//
// After `turbo run build`: `npm pack` every published package into a temporary folder, then
//  1. one consumer project with every package: every entry point loads from ESM (`import`) and
//     from CommonJS (`require`), and `.mts`/`.cts` files that import every entry point type-check
//     with `strict` under `moduleResolution` `nodenext` and `bundler`, first without `@types/node`
//     in the consumer's own dependencies, then with it, and with `"types": []` (no `@types` at all);
//     the installed `spine acp` and `spine mcp serve` answer their clients' `initialize`;
//  2. one consumer project with `@spine/session-log` alone (plus the `@spine/protocol` tarball it
//     depends on): a session is written from ESM and from CommonJS, and the same two type checks.
//  3. the CLI alone, as `npm i @spine/cli` installs it (its optional peers absent): node_modules
//     stays under 42 MB, `spine demo` runs, and `spine doctor` names the optional @spine/mcp with
//     its install command (a failed check once `.mcp.json` configures a server, and `spine run`
//     then exits 2 with that command);
//  4. the loaders and sessions of 1 and 2, and `spine demo`, again under each pinned Node version
//     of scripts/lib/node-versions.mjs (the oldest `engines` allows and the newest 22.x; official
//     binaries from the npm registry, cached outside the repository; a failed download fails);
//  5. `@spine/ai-sdk` with `ai` 7 (ES modules only, Node >= 22; the repository tests `ai` 6): its
//     types against `ai` 7's, its CommonJS build, and a multi-step agent on the loopback model server
//     under the pinned Node 22 (packages/ai-sdk/test/fixtures/ai7).
// (`npm publish --dry-run` of every tarball, after `changeset version`, is scripts/release-check.mjs.)
// Registry dependencies (zod, undici, …) come from the npm registry. Everything it creates is
// removed at the end unless `--keep` is given. Exit code 1 with every problem listed on failure.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { installNode, NODE_VERSIONS } from './lib/node-versions.mjs';
import { packPublished } from './lib/pack.mjs';

const keep = process.argv.includes('--keep');
const repo = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'spine-consumer-'));
const tarballs = join(work, 'tarballs');
mkdirSync(tarballs);
const problems = [];
// The CLI's default install (node_modules of a project with only @spine/cli), in MB.
// 42 since the terminal renders Markdown and approval diffs (marked 0.8 MB, diff 0.9 MB; issue 35).
const CLI_BUDGET_MB = 42;

/** Runs a command; returns stdout, or records the failure and returns undefined. */
/**
 * Starts the installed `spine <args>` (a JSON-RPC server on stdio), sends `request` as request 1
 * and records a problem unless the answer to it is a result within 60 s: the bundled build reads
 * files relative to its own chunks, which only an installed copy exercises.
 */
async function answersOnStdio(label, spine, args, cwd, request) {
  const child = spawn(process.execPath, [spine, ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  const answer = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 60_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      for (const line of out.split('\n').slice(0, -1)) {
        try {
          const message = JSON.parse(line);
          if (message.id === 1) {
            clearTimeout(timer);
            resolve(message);
          }
        } catch {
          // not JSON: reported below with the rest of stdout
        }
      }
    });
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, ...request })}\n`);
  });
  child.stdin.end();
  child.kill();
  if (!answer?.result)
    problems.push(
      `${label}: no result for ${request.method}: ${JSON.stringify(answer)} ${out}${err}`,
    );
}

function run(label, command, args, cwd) {
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
  } catch (error) {
    problems.push(`${label}: ${`${error.stdout ?? ''}${error.stderr ?? error.message}`.trim()}`);
    return undefined;
  }
}

// The pinned Node binaries, fetched before anything else so that a failed download stops the
// check at once (an unreachable registry must not look like a pass).
const started = performance.now();
const nodes = NODE_VERSIONS.map((pinned) => ({ ...pinned, binary: installNode(pinned) }));
console.log(
  `consumer-check: Node ${nodes.map((n) => n.version).join(', ')} ready in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

// The published packages and the subpaths each exports.
const published = [];
for (const { pkg, tarball } of packPublished(repo, tarballs)) {
  const exportsMap = pkg.exports ?? { '.': null };
  const specifier = (key) => (key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`);
  const subpaths = Object.keys(exportsMap).map(specifier);
  // The CLI's API is ES modules only (no `require` condition); everything else has both.
  const required = Object.entries(exportsMap)
    .filter(([, target]) => target && typeof target === 'object' && 'require' in target)
    .map(([key]) => specifier(key));
  const dependencies = Object.keys(pkg.dependencies ?? {});
  published.push({ name: pkg.name, tarball, subpaths, required, dependencies });
}

/** Creates a consumer project that installs the given tarballs plus `extra` registry packages. */
function consumer(name, packages, extra) {
  const dir = join(work, name);
  mkdirSync(dir);
  const dependencies = Object.fromEntries(packages.map((p) => [p.name, `file:${p.tarball}`]));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name, private: true, version: '0.0.0', dependencies }, null, 2),
  );
  const started = performance.now();
  run(`${name}: npm install`, 'npm', ['install', '--no-audit', '--no-fund', ...extra], dir);
  const seconds = (performance.now() - started) / 1000;
  const size = run(`${name}: du`, 'du', ['-sk', join(dir, 'node_modules')], dir);
  console.log(
    `consumer-check: ${name}: installed in ${seconds.toFixed(1)} s, node_modules ${(
      Number.parseInt(size ?? '0', 10) / 1024
    ).toFixed(1)} MB`,
  );
  return dir;
}

/** Type-checks `files` in `dir` under both module resolutions with strict settings. */
function typecheck(name, dir, files, label) {
  // The third: a consumer that lists no `@types` packages; the .d.ts files reference Node's types.
  for (const [resolution, module, types] of [
    ['nodenext', 'nodenext', undefined],
    ['bundler', 'preserve', undefined],
    ['nodenext', 'nodenext', []],
  ]) {
    const config = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        module,
        moduleResolution: resolution,
        target: 'es2022',
        lib: ['es2023'],
        ...(types ? { types } : {}),
        // No skipLibCheck: the published .d.ts files are what is being checked.
      },
      files,
    };
    const variant = types ? `${resolution}-no-types` : resolution;
    const tsconfig = `tsconfig.${variant}.json`;
    writeFileSync(join(dir, tsconfig), JSON.stringify(config, null, 2));
    run(`${name}: tsc ${variant} ${label}`, 'npx', ['--no-install', 'tsc', '-p', tsconfig], dir);
  }
}

/** ESM, CJS and TypeScript files that load every entry point of `packages`. */
function writeLoaders(dir, packages) {
  const specifiers = packages.flatMap((p) => p.subpaths);
  const list = JSON.stringify(specifiers);
  const requiredList = JSON.stringify(packages.flatMap((p) => p.required));
  writeFileSync(
    join(dir, 'load.mjs'),
    `for (const s of ${list}) {\n  const m = await import(s);\n  if (Object.keys(m).length === 0) throw new Error(s + ' exports nothing');\n}\nconsole.log('esm ok', process.version);\n`,
  );
  writeFileSync(
    join(dir, 'load.cjs'),
    `for (const s of ${requiredList}) {\n  const m = require(s);\n  if (Object.keys(m).length === 0) throw new Error(s + ' exports nothing');\n}\nconsole.log('cjs ok', process.version);\n`,
  );
  const imports = specifiers.map((s, i) => `import * as m${i} from '${s}';`).join('\n');
  const use = `export const all = [${specifiers.map((_, i) => `m${i}`).join(', ')}];\n`;
  writeFileSync(join(dir, 'check.mts'), `${imports}\n${use}`);
  const requiredSpecifiers = packages.flatMap((p) => p.required);
  const requires = requiredSpecifiers.map((s, i) => `import m${i} = require('${s}');`).join('\n');
  const cjsUse = `export const all = [${requiredSpecifiers.map((_, i) => `m${i}`).join(', ')}];\n`;
  writeFileSync(join(dir, 'check.cts'), `${requires}\n${cjsUse}`);
}

// 1. Every package in one consumer.
const allPackagesDir = consumer('all-packages', published, ['typescript@5.9.3']);
{
  const name = 'all-packages';
  const dir = allPackagesDir;
  writeLoaders(dir, published);
  run(`${name}: node load.mjs`, 'node', ['load.mjs'], dir);
  run(`${name}: node load.cjs`, 'node', ['load.cjs'], dir);
  // Node 20.18 cannot require() ES modules; newer Node can turn that off, so the CommonJS builds
  // are also checked as 20.18 loads them, every package included (web-tools' CommonJS build
  // bundles linkedom, whose dependency css-select ships only as ES modules).
  run(
    `${name}: node --no-experimental-require-module load.cjs`,
    'node',
    ['--no-experimental-require-module', '--no-warnings', 'load.cjs'],
    dir,
  );
  typecheck(name, dir, ['check.mts', 'check.cts'], 'without @types/node in the consumer');
  // The installed CLI runs its offline demo (its optional peers, TypeScript's language server and
  // the DeepSeek tokenizer, are not installed here).
  const spine = join(dir, 'node_modules', '@spine', 'cli', 'bin', 'spine.js');
  run(`${name}: spine demo`, 'node', [spine, 'demo'], dir);
  // The ACP and MCP servers (optional peers, installed here) from the installed bundle.
  await answersOnStdio(`${name}: spine acp`, spine, ['acp'], dir, {
    method: 'initialize',
    params: { protocolVersion: 1 },
  });
  await answersOnStdio(`${name}: spine mcp serve`, spine, ['mcp', 'serve'], dir, {
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'consumer-check', version: '1' },
    },
  });
  run(
    `${name}: install @types/node`,
    'npm',
    ['install', '--no-audit', '--no-fund', '@types/node@20'],
    dir,
  );
  typecheck(name, dir, ['check.mts', 'check.cts'], 'with @types/node');
}

// 2. The session log alone: what the design card's first adopter installs.
const sessionLogDir = consumer(
  'session-log-alone',
  published.filter((p) => p.name === '@spine/session-log' || p.name === '@spine/protocol'),
  ['typescript@5.9.3'],
);
{
  const name = 'session-log-alone';
  const own = published.filter(
    (p) => p.name === '@spine/session-log' || p.name === '@spine/protocol',
  );
  const dir = sessionLogDir;
  writeLoaders(
    dir,
    own.filter((p) => p.name === '@spine/session-log'),
  );
  const body = (load) => `${load}
(async () => {
  const store = createMemoryStore();
  const session = await Session.create({ store, title: 'consumer' });
  session.append('turn/start', {}, { turn: 1 });
  session.append('user/message', { content: 'hi', source: 'user' }, { turn: 1, surfaceOp: { op: 'append' } });
  const { messages } = session.deriveMessages();
  if (messages.length !== 1 || messages[0].content !== 'hi') throw new Error('unexpected messages');
  await session.close();
  console.log('session ok', process.version);
})().catch((error) => { console.error(error); process.exit(1); });
`;
  writeFileSync(
    join(dir, 'session.mjs'),
    body("import { Session, createMemoryStore } from '@spine/session-log';"),
  );
  writeFileSync(
    join(dir, 'session.cjs'),
    body("const { Session, createMemoryStore } = require('@spine/session-log');"),
  );
  for (const file of ['load.mjs', 'load.cjs', 'session.mjs', 'session.cjs']) {
    run(`${name}: node ${file}`, 'node', [file], dir);
  }
  run(
    `${name}: node --no-experimental-require-module session.cjs`,
    'node',
    ['--no-experimental-require-module', '--no-warnings', 'session.cjs'],
    dir,
  );
  typecheck(name, dir, ['check.mts', 'check.cts'], 'without @types/node in the consumer');
}

// 3. The CLI alone: what `npm i @spine/cli` installs, without its optional peer dependencies.
{
  const name = 'cli-alone';
  const byName = new Map(published.map((p) => [p.name, p]));
  const closure = new Set();
  const add = (packageName) => {
    if (closure.has(packageName) || !byName.has(packageName)) return;
    closure.add(packageName);
    for (const dependency of byName.get(packageName).dependencies) add(dependency);
  };
  add('@spine/cli');
  const dir = consumer(
    name,
    [...closure].map((packageName) => byName.get(packageName)),
    [],
  );
  const kb = Number.parseInt(run(`${name}: du`, 'du', ['-sk', 'node_modules'], dir) ?? '0', 10);
  if (kb / 1024 >= CLI_BUDGET_MB) {
    problems.push(
      `${name}: node_modules is ${(kb / 1024).toFixed(1)} MB, over the ${CLI_BUDGET_MB} MB budget`,
    );
  }
  const spine = join(dir, 'node_modules', '@spine', 'cli', 'bin', 'spine.js');
  run(`${name}: spine demo`, 'node', [spine, 'demo'], dir);
  const mcpLine = () => {
    // No key here, so the provider check fails and doctor exits 7; its JSON report is complete.
    const result = spawnSync(process.execPath, [spine, 'doctor', '--json'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, DEEPSEEK_API_KEY: '' },
    });
    try {
      return JSON.parse(result.stdout).find((check) => check.area === 'mcp');
    } catch {
      problems.push(`${name}: spine doctor --json: ${result.stdout}${result.stderr}`);
      return undefined;
    }
  };
  const install = 'npm i @spine/mcp@';
  const quiet = mcpLine();
  if (quiet && (quiet.status !== 'ok' || !quiet.detail.includes(install)))
    problems.push(`${name}: doctor's mcp line without servers: ${JSON.stringify(quiet)}`);
  writeFileSync(
    join(dir, '.mcp.json'),
    JSON.stringify({ mcpServers: { files: { command: 'node', args: ['server.js'] } } }),
  );
  const configured = mcpLine();
  if (configured && (configured.status !== 'fail' || !configured.detail.includes(install)))
    problems.push(`${name}: doctor's mcp line with a server: ${JSON.stringify(configured)}`);
  // A session with MCP servers configured stops before any model call, naming the install command.
  const session = spawnSync(
    process.execPath,
    [spine, 'run', '--model', 'openai-compatible/test', '--base-url', 'http://127.0.0.1:9', 'hi'],
    {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, OPENAI_API_KEY: 'unused' },
      timeout: 120_000,
    },
  );
  if (session.status !== 2 || !session.stderr.includes(install))
    problems.push(
      `${name}: spine run with an MCP server configured, without @spine/mcp: exit ${session.status}: ${session.stderr}`,
    );
}

// 4. The same loaders, sessions and demo under each pinned Node version. Every script prints
// `process.version`, which must be the pinned one, so a run on the wrong binary cannot pass.
for (const { version, binary } of nodes) {
  const versionStarted = performance.now();
  const expect = (name, dir, args, marker) => {
    const out = run(`${name}: node ${version} ${args.join(' ')}`, binary, args, dir);
    if (out !== undefined && !out.includes(marker))
      problems.push(`${name}: node ${version} ${args.join(' ')} printed ${JSON.stringify(out)}`);
  };
  const tag = `v${version}`;
  expect('all-packages', allPackagesDir, ['load.mjs'], `esm ok ${tag}`);
  const requireModule =
    run(`node ${version}`, binary, ['-p', 'process.features.require_module === true'], work) ===
    'true\n';
  // Before Node 20.19 require() cannot load ES modules: every CommonJS build must load anyway.
  expect('all-packages', allPackagesDir, ['load.cjs'], `cjs ok ${tag}`);
  for (const [file, marker] of [
    ['load.mjs', 'esm ok'],
    ['load.cjs', 'cjs ok'],
    ['session.mjs', 'session ok'],
    ['session.cjs', 'session ok'],
  ]) {
    expect('session-log-alone', sessionLogDir, [file], `${marker} ${tag}`);
  }
  const spine = join(allPackagesDir, 'node_modules', '@spine', 'cli', 'bin', 'spine.js');
  expect('all-packages', allPackagesDir, [spine, 'demo'], 'demo passed');
  console.log(
    `consumer-check: Node ${tag}: ESM, CJS${requireModule ? '' : ' (without require(esm))'}, sessions and spine demo in ${((performance.now() - versionStarted) / 1000).toFixed(1)} s`,
  );
}

// 5. @spine/ai-sdk with ai 7, which needs Node 22 and ships ES modules only. The type check uses
// `dom` and skipLibCheck: what is checked is that Spine's tools and middleware fit ai 7's types
// (ai's own declarations need the DOM library; 1 checks that @spine/ai-sdk's do not load them).
{
  const name = 'ai-sdk-ai7';
  const node22 = nodes.find((n) => n.version.startsWith('22.'));
  const wanted = ['ai-sdk', 'protocol', 'session-log', 'tool-runtime', 'llm'];
  const dir = consumer(
    name,
    published.filter((p) => wanted.includes(p.name.slice('@spine/'.length))),
    ['ai@7', '@ai-sdk/openai-compatible@3', 'typescript@5.9.3'],
  );
  const fixtures = join(repo, 'packages', 'ai-sdk', 'test', 'fixtures', 'ai7');
  for (const file of ['agent.mjs', 'check.mts'])
    copyFileSync(join(fixtures, file), join(dir, file));
  const compilerOptions = {
    strict: true,
    noEmit: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    lib: ['es2023', 'dom'],
    skipLibCheck: true,
  };
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions, files: ['check.mts'] }),
  );
  run(`${name}: tsc against ai 7`, 'npx', ['--no-install', 'tsc', '-p', 'tsconfig.json'], dir);
  writeFileSync(
    join(dir, 'load.cjs'),
    "if (typeof require('@spine/ai-sdk').spineTools !== 'function') throw new Error('no spineTools');\nconsole.log('cjs ok', process.version);\n",
  );
  if (!node22) problems.push(`${name}: no pinned Node 22 in scripts/lib/node-versions.mjs`);
  for (const [file, marker] of [
    ['load.cjs', 'cjs ok'],
    ['agent.mjs', 'ai7 agent ok'],
  ]) {
    const out =
      node22 && run(`${name}: node ${node22.version} ${file}`, node22.binary, [file], dir);
    if (node22 && out !== undefined && !out.includes(`${marker} v${node22.version}`))
      problems.push(`${name}: node ${node22.version} ${file} printed ${JSON.stringify(out)}`);
  }
  console.log(`consumer-check: ${name}: types, CommonJS and an agent on ai 7 under Node 22`);
}

if (keep) console.log(`consumer-check: kept ${work}`);
else rmSync(work, { recursive: true, force: true });
if (problems.length) {
  for (const problem of problems) console.error(`consumer-check: ${problem}\n`);
  process.exit(1);
}
console.log(`consumer-check: ${published.length} packages install, load (ESM, CJS) and type-check`);
