#!/usr/bin/env node
// Runs the README and guide examples as an adopter would paste them (after `turbo run build`).
//
// Every fenced `ts` block that imports a `@spine/*` package is an example. All packages are packed
// and installed from their tarballs into one project outside the repository (with typescript and
// tsx from the registry); each example is written there as an `.mts` file, type-checked with
// `strict` under `moduleResolution` nodenext, then run with tsx in its own empty folder, offline:
// provider keys are removed from the environment, so an example that needs one must say so and
// exit 0. Blocks without such an import, and blocks fenced as `ts excerpt`, are fragments (signatures,
// parts of a program) and are listed, not run.
// A block fenced as `ts prints` also documents what it prints: the comment after each
// `console.log(…);` is that line's output, `…` standing for text left out, and the run's stdout
// must hold every part in order (exit 0 alone let an example print a denial where the README
// promised a started job).
// Each example then runs again under every pinned Node version of scripts/lib/node-versions.mjs
// (the oldest `engines` allows and the newest 22.x), transpiled once to `.mjs` (TypeScript's
// transpileModule: the type check above already ran) and run by that binary directly (tsx's
// start-up per run made this 160 s instead of 30), with a probe of `process.version`.
// Exit code 1 with every failing example listed. `--keep` keeps the project for inspection.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { installNode, NODE_VERSIONS } from './lib/node-versions.mjs';
import { packPublished } from './lib/pack.mjs';

const keep = process.argv.includes('--keep');
// `--packages-only`: the package READMEs (what a package page shows), not docs/guides.
const packagesOnly = process.argv.includes('--packages-only');
const repo = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'spine-examples-'));
const tarballs = join(work, 'tarballs');
const project = join(work, 'project');
mkdirSync(tarballs);
mkdirSync(project);

// 1. Examples from the package READMEs and the guides.
const sources = [
  ...readdirSync(join(repo, 'packages')).map((dir) => join(repo, 'packages', dir, 'README.md')),
  join(repo, 'apps', 'reference-cli', 'README.md'),
  ...(packagesOnly ? [] : readdirSync(join(repo, 'docs', 'guides')))
    .filter((file) => file.endsWith('.md'))
    .map((file) => join(repo, 'docs', 'guides', file)),
];
const examples = [];
const fragments = [];
for (const source of sources) {
  let text;
  try {
    text = readFileSync(source, 'utf8');
  } catch {
    continue;
  }
  if (source.includes('/test-utils/')) continue; // private package, not published
  const where = relative(repo, source);
  let index = 0;
  for (const match of text.matchAll(/^```(?:ts|typescript)([^\n]*)\n([\s\S]*?)^```/gm)) {
    index++;
    const code = match[2];
    const label = `${where} block ${index}`;
    // A `ts excerpt` fence marks part of a program (it names things defined elsewhere).
    if (!match[1].includes('excerpt') && /from\s+['"]@spine\//.test(code)) {
      examples.push({ label, code, prints: match[1].includes('prints') ? printedParts(code) : [] });
    } else fragments.push(label);
  }
}

/** The documented output of a `ts prints` block: each console.log comment, split at `…`. */
function printedParts(code) {
  const parts = [];
  for (const line of code.split('\n')) {
    const comment = line.match(/console\.log\(.*\);\s*\/\/\s*(.+)$/)?.[1];
    if (comment)
      parts.push(
        ...comment
          .split('…')
          .map((part) => part.trim())
          .filter(Boolean),
      );
  }
  return parts;
}

/** The first documented part `stdout` lacks (the parts are looked for in order), or undefined. */
function missingPart(stdout, parts) {
  let from = 0;
  for (const part of parts) {
    const at = stdout.indexOf(part, from);
    if (at < 0) return part;
    from = at + part.length;
  }
  return undefined;
}

/** A problem when a `ts prints` example's output is not the documented one. */
function outputProblem(example, stdout, where) {
  const missing = missingPart(stdout, example.prints);
  if (missing === undefined) return undefined;
  const printed = stdout.trim().split('\n').slice(-8).join('\n  ');
  return `${example.label}${where}: printed something else than documented (no ${JSON.stringify(missing)})\n  ${printed}`;
}

// 2. One consumer project with every published package from its tarball.
const dependencies = {};
for (const { pkg, tarball } of packPublished(repo, tarballs)) {
  dependencies[pkg.name] = `file:${tarball}`;
}
dependencies.typescript = '5.9.3';
dependencies.tsx = '4.23.15';
dependencies.zod = '4.6.7';
// @spine/ai-sdk's example runs with the AI SDK (its peer); `ai`'s declarations import the
// `json-schema` types, which it does not ship.
dependencies.ai = '6.0.333';
dependencies['@types/json-schema'] = '7.0.15';
writeFileSync(
  join(project, 'package.json'),
  JSON.stringify({ name: 'examples', private: true, type: 'module', dependencies }, null, 2),
);
execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project });

// 3. Type-check every example together, then run each one.
const files = examples.map((example, i) => {
  const file = `example-${i + 1}.mts`;
  writeFileSync(join(project, file), `// ${example.label}\n${example.code}`);
  return { ...example, file };
});
writeFileSync(
  join(project, 'tsconfig.json'),
  JSON.stringify({
    compilerOptions: {
      strict: true,
      noEmit: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
    },
    files: files.map((f) => f.file),
  }),
);
const problems = [];
const tsc = spawnSync(join(project, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], {
  cwd: project,
  encoding: 'utf8',
});
if (tsc.status !== 0) {
  const byFile = new Map();
  for (const line of tsc.stdout.split('\n')) {
    const file = line.match(/^(example-\d+\.mts)\(/)?.[1];
    if (file) byFile.set(file, [...(byFile.get(file) ?? []), line]);
  }
  for (const example of files) {
    const lines = byFile.get(example.file);
    if (lines) problems.push(`${example.label}: tsc\n  ${lines.join('\n  ')}`);
  }
  if (byFile.size === 0) problems.push(`tsc: ${tsc.stdout}${tsc.stderr}`);
}
// The pinned Node versions (a failed download throws: never a silent pass on one Node only), and
// the examples compiled for them (plus a probe that prints the version it runs on).
const setupStarted = performance.now();
const nodes = NODE_VERSIONS.map((pinned) => ({ ...pinned, binary: installNode(pinned) }));
writeFileSync(join(project, 'version.mts'), 'console.log(process.version);\n');
mkdirSync(join(project, 'out'));
const compiled = (file) => join(project, 'out', file.replace(/\.mts$/, '.mjs'));
for (const file of [...files.map((f) => f.file), 'version.mts']) {
  const source = readFileSync(join(project, file), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  writeFileSync(compiled(file), outputText);
}
const setupSeconds = (performance.now() - setupStarted) / 1000;
for (const { version, binary } of nodes) {
  const probe = spawnSync(binary, [compiled('version.mts')], { encoding: 'utf8' });
  if (probe.stdout.trim() !== `v${version}`)
    problems.push(
      `the probe under Node ${version} printed ${JSON.stringify(probe.stdout + probe.stderr)}`,
    );
}
const env = { ...process.env };
for (const name of Object.keys(env)) {
  if (/_API_KEY$|^SEARXNG_URL$/.test(name)) delete env[name];
}
for (const example of files) {
  const cwd = join(work, `run-${example.file}`);
  mkdirSync(cwd);
  const result = spawnSync(
    join(project, 'node_modules', '.bin', 'tsx'),
    [join(project, example.file)],
    { cwd, env, encoding: 'utf8', timeout: 120_000 },
  );
  const wrong = result.status === 0 ? outputProblem(example, result.stdout, '') : undefined;
  const status =
    result.status !== 0 ? `exit ${result.status ?? result.signal}` : wrong ? 'output' : 'ok';
  console.log(`readme-examples: ${status.padEnd(8)} ${example.label}`);
  if (wrong) problems.push(wrong);
  if (result.status !== 0) {
    problems.push(
      `${example.label}: ${status}\n  ${`${result.stdout}${result.stderr}`.trim().split('\n').slice(-8).join('\n  ')}`,
    );
  }
}
const pinnedStarted = performance.now();
for (const { version, binary } of nodes) {
  for (const example of files) {
    const cwd = join(work, `run-${version}-${example.file}`);
    mkdirSync(cwd);
    const result = spawnSync(binary, [compiled(example.file)], {
      cwd,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (result.status !== 0) {
      problems.push(
        `${example.label} under Node ${version}: exit ${result.status ?? result.signal}\n  ${`${result.stdout}${result.stderr}`.trim().split('\n').slice(-8).join('\n  ')}`,
      );
    } else {
      const wrong = outputProblem(example, result.stdout, ` under Node ${version}`);
      if (wrong) problems.push(wrong);
    }
  }
}
console.log(
  `readme-examples: the ${files.length} examples under Node ${nodes.map((n) => n.version).join(' and ')} in ${((performance.now() - pinnedStarted) / 1000 + setupSeconds).toFixed(1)} s (${setupSeconds.toFixed(1)} s of it installing and transpiling)`,
);
console.log(`readme-examples: fragments (not run): ${fragments.join(', ') || 'none'}`);
if (keep) console.log(`readme-examples: kept ${work}`);
else rmSync(work, { recursive: true, force: true });
if (problems.length) {
  for (const problem of problems) console.error(`readme-examples: ${problem}\n`);
  process.exit(1);
}
console.log(`readme-examples: ${files.length} examples type-check and run`);
