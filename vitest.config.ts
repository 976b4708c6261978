import { readdirSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { slowFirst } from './scripts/lib/test-order.js';

// Tests never wait for a build: every @spine/* import resolves to the package's source.
// Subpath exports are listed first and matched exactly.
const root = fileURLToPath(new URL('.', import.meta.url));
const subpaths = [
  {
    find: /^@spine\/protocol\/core$/,
    replacement: `${root}packages/protocol/src/core.ts`,
  },
  {
    find: /^@spine\/protocol\/testing$/,
    replacement: `${root}packages/protocol/src/testing.ts`,
  },
  {
    find: /^@spine\/session-log\/sqlite$/,
    replacement: `${root}packages/session-log/src/sqlite.ts`,
  },
  {
    find: /^@spine\/session-log\/testing$/,
    replacement: `${root}packages/session-log/src/testing.ts`,
  },
  {
    find: /^@spine\/compaction\/testing$/,
    replacement: `${root}packages/compaction/src/testing.ts`,
  },
  {
    find: /^@spine\/llm\/testing$/,
    replacement: `${root}packages/llm/src/testing.ts`,
  },
  {
    find: /^@spine\/web-tools\/testing$/,
    replacement: `${root}packages/web-tools/src/testing.ts`,
  },
  {
    find: /^@spine\/tool-runtime\/testing$/,
    replacement: `${root}packages/tool-runtime/src/testing.ts`,
  },
  {
    find: /^@spine\/checkpoints\/testing$/,
    replacement: `${root}packages/checkpoints/src/testing.ts`,
  },
];
const packages = readdirSync(`${root}packages`).map((name) => ({
  find: new RegExp(`^@spine/${name}$`),
  replacement: `${root}packages/${name}/src/index.ts`,
}));

/** vitest's order (results cache, else largest file first), with the known-slow files first. */
class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return slowFirst(sorted, (file) => relative(root, file.moduleId).split('\\').join('/'));
  }
}

export default defineConfig({
  resolve: { alias: [...subpaths, ...packages] },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/test/**/*.test.ts',
      'apps/*/src/**/*.test.ts',
      'apps/*/test/**/*.test.ts',
      'scripts/lib/*.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    sequence: { sequencer: SlowFirstSequencer },
  },
});
