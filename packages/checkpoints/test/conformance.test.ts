import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGitCheckpointStore } from '../src/index.js';
import { checkCheckpointStore, checkpointStoreConformanceCases } from '../src/testing.js';

const fixture = {
  store: (workspace: string, directory: string) =>
    createGitCheckpointStore({ workspace, directory }),
};

describe('the git checkpoint store keeps the CheckpointStore contract', () => {
  for (const conformanceCase of checkpointStoreConformanceCases) {
    it(conformanceCase.name, () => conformanceCase.run(fixture), 60_000);
  }

  it('reports a store that restores nothing as failing', async () => {
    const report = await checkCheckpointStore({
      store: (workspace, directory) => {
        const real = createGitCheckpointStore({ workspace, directory });
        return {
          ...real,
          specificationVersion: 1,
          workspace: real.workspace,
          checkpoint: (options) => real.checkpoint(options),
          diff: (from, to, options) => real.diff(from, to, options),
          patch: (from, to, options) => real.patch(from, to, options),
          read: (id, path) => real.read(id, path),
          restore: (target, options) => real.restore(target, { ...options, dryRun: true }),
        };
      },
    });
    expect(report.ok).toBe(false);
    expect(report.failed.map((failure) => failure.name)).toContain(
      'restores modified, deleted and added files to the checkpoint',
    );
  }, 120_000);

  it('removes its temporary folders when the store factory throws', async () => {
    const roots: string[] = [];
    const report = await checkCheckpointStore({
      store: (workspace) => {
        roots.push(dirname(workspace));
        throw new Error('no store today');
      },
    });
    expect(report.ok).toBe(false);
    expect(report.failed).toHaveLength(checkpointStoreConformanceCases.length);
    expect(roots).toHaveLength(checkpointStoreConformanceCases.length);
    expect(roots.filter((root) => existsSync(root))).toEqual([]);
  }, 120_000);
});
