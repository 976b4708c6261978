#!/usr/bin/env node
// The release flow, dry (after `turbo run build`): on a throwaway copy of the repository (never
// committed, removed at the end) `changeset version` applies the pending changesets, then every
// published package is packed from the copy and `npm publish --dry-run` accepts each tarball.
// Checks that each package the changesets name got a new version and a CHANGELOG entry, and that
// its `@spine/*` dependencies point at the new versions. Each package gets `repository` (with its
// `directory`), `homepage` and `bugs` from the root package.json before it is packed, and its
// tarball is checked for them; a root without them fails the check (they are never invented), and
// so does a package.json that sets its own. Until the project has a public remote,
// `--no-public-remote` (used by .ci/run) reports the missing links instead of failing
// (docs/decisions/2026-12-01-release-metadata.md). Nothing is uploaded. Exit code 1 with every
// problem listed on failure; `--keep` keeps the copy.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { packPublished } from './lib/pack.mjs';
import { missingRootMetadata, ownLinkFields, packageMetadata } from './lib/release-metadata.mjs';

const execFileAsync = promisify(execFile);
const keep = process.argv.includes('--keep');
const noPublicRemote = process.argv.includes('--no-public-remote');
const repo = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'spine-release-'));
const copy = join(work, 'repo');
const tarballs = join(work, 'tarballs');
mkdirSync(copy);
mkdirSync(tarballs);
const problems = [];

/** The published packages of a tree: name → { dir, pkg }. */
function publishedPackages(root) {
  const found = new Map();
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(root, group))) {
      let pkg;
      try {
        pkg = JSON.parse(readFileSync(join(root, group, name, 'package.json'), 'utf8'));
      } catch {
        continue;
      }
      if (!pkg.private) found.set(pkg.name, { dir: join(root, group, name), pkg });
    }
  }
  return found;
}

// 1. The copy: the working tree with the built dist folders, without node_modules and .git.
execFileSync(
  'sh',
  [
    '-c',
    `tar -C "${repo}" --exclude=./node_modules --exclude='*/node_modules' --exclude=./.git --exclude=./docs/api -cf - . | tar -C "${copy}" -xf -`,
  ],
  { stdio: 'inherit' },
);

// 2. The packages the pending changesets bump (from their front matter).
const bumped = new Set();
for (const file of readdirSync(join(copy, '.changeset'))) {
  if (!file.endsWith('.md') || file === 'README.md') continue;
  const text = readFileSync(join(copy, '.changeset', file), 'utf8');
  const front = text.match(/^---\n([\s\S]*?)\n---/)?.[1] ?? '';
  for (const match of front.matchAll(/^"([^"]+)":\s*(patch|minor|major)\s*$/gm))
    bumped.add(match[1]);
}
const before = publishedPackages(copy);

// 3. `changeset version` in the copy (the repository's own changesets binary).
const changeset = join(repo, 'node_modules', '.bin', 'changeset');
try {
  execFileSync(changeset, ['version'], {
    cwd: copy,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
} catch (error) {
  problems.push(`changeset version: ${`${error.stdout ?? ''}${error.stderr ?? error.message}`}`);
}
const after = publishedPackages(copy);
for (const [name, { dir, pkg }] of after) {
  const old = before.get(name)?.pkg.version;
  if (bumped.has(name)) {
    if (pkg.version === old) problems.push(`${name}: still ${old} after changeset version`);
    let changelog = '';
    try {
      changelog = readFileSync(join(dir, 'CHANGELOG.md'), 'utf8');
    } catch {}
    if (!changelog.includes(`## ${pkg.version}`))
      problems.push(`${name}: CHANGELOG.md has no "## ${pkg.version}" entry`);
  }
  for (const [dependency, range] of Object.entries(pkg.dependencies ?? {})) {
    const target = after.get(dependency)?.pkg.version;
    if (target && range !== target && range !== `^${target}`)
      problems.push(`${name}: depends on ${dependency}@${range}, but the release is ${target}`);
  }
}
const pending = readdirSync(join(copy, '.changeset')).filter(
  (file) => file.endsWith('.md') && file !== 'README.md',
);
if (pending.length > 0) problems.push(`changesets left after version: ${pending.join(', ')}`);

// 4. The links: from the root package.json into each package (never from a package's own).
const root = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8'));
const missingLinks = missingRootMetadata(root);
for (const [name, { pkg }] of after) {
  const own = ownLinkFields(pkg);
  if (own.length > 0)
    problems.push(`${name}: sets ${own.join(', ')} itself; only the root package.json does`);
}
let linksNotice = '';
if (missingLinks.length === 0) {
  for (const { dir, pkg } of after.values()) {
    const metadata = packageMetadata(root, relative(copy, dir));
    writeFileSync(
      join(dir, 'package.json'),
      `${JSON.stringify({ ...pkg, ...metadata }, null, 2)}\n`,
    );
  }
} else {
  const what = `the root package.json has no ${missingLinks.join(', ')}, so the packages would publish without repository, homepage and bugs links; add the public remote's URLs there (docs/decisions/2026-12-01-release-metadata.md)`;
  if (noPublicRemote) {
    linksNotice = `; NOT PUBLISHABLE YET: ${what}`;
    console.log(`release-check: --no-public-remote: ${what}`);
  } else problems.push(what);
}

// 5. Pack each package from the copy and let npm check it for publishing (nothing is uploaded).
const packed = [];
try {
  packed.push(...packPublished(copy, tarballs));
} catch (error) {
  problems.push(`npm pack: ${error.stderr ?? error.message}`);
}
// Four at a time: each dry run spends most of its time waiting for the registry.
const queue = [...packed];
await Promise.all(
  Array.from({ length: 4 }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const { pkg, tarball } = next;
      try {
        if (missingLinks.length === 0) {
          const { stdout: manifest } = await execFileAsync(
            'tar',
            ['-xzOf', tarball, 'package/package.json'],
            { encoding: 'utf8' },
          );
          const shipped = JSON.parse(manifest);
          const expected = packageMetadata(root, relative(copy, next.dir));
          for (const field of ['repository', 'homepage', 'bugs']) {
            if (JSON.stringify(shipped[field]) !== JSON.stringify(expected[field]))
              problems.push(
                `${pkg.name}: the tarball's ${field} is ${JSON.stringify(shipped[field])}, not ${JSON.stringify(expected[field])}`,
              );
          }
        }
        const { stdout } = await execFileAsync('npm', ['publish', '--dry-run', tarball], {
          cwd: work,
          encoding: 'utf8',
          env: { ...process.env, npm_config_update_notifier: 'false' },
        });
        if (!stdout.includes(`+ ${pkg.name}@${pkg.version}`))
          problems.push(
            `${pkg.name}: npm publish --dry-run did not report ${pkg.version}: ${stdout}`,
          );
      } catch (error) {
        problems.push(`${pkg.name}: npm publish --dry-run: ${error.stderr ?? error.message}`);
      }
    }
  }),
);

if (keep) console.log(`release-check: kept ${work}`);
else rmSync(work, { recursive: true, force: true });
if (problems.length) {
  for (const problem of problems) console.error(`release-check: ${problem}\n`);
  process.exit(1);
}
console.log(
  `release-check: changeset version bumped ${bumped.size} packages (${[...after.values()]
    .filter(({ pkg }) => bumped.has(pkg.name))
    .map(({ pkg }) => `${pkg.name}@${pkg.version}`)
    .join(', ')}); npm publish --dry-run accepts all ${packed.length} tarballs${
    missingLinks.length === 0 ? ', each with its repository, homepage and bugs links' : linksNotice
  }`,
);
