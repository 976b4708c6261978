import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJsonlStore } from '@spine/session-log';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBigTree } from './big-tree.js';

// The tree readers on a long parent (40,000 events, ~35 MB of JSONL, compacted every 25 turns)
// hold about its surface, not its log: each runs in a child process that samples heapUsed.

const EVENTS = 40_000;
const PROBE = join(dirname(fileURLToPath(import.meta.url)), 'heap-probe.mjs');

interface HeapReport {
  before: number;
  peak: number;
  summary: Record<string, unknown>;
}

function probe(reader: string, dir: string): HeapReport {
  const report = join(dir, `${reader}.json`);
  const result = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      // A small nursery: short-lived garbage is collected early, so the peak shows what is held.
      '--max-semi-space-size=2',
      PROBE,
      reader,
      dir,
      'long',
      'short',
      report,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 240_000 },
  );
  if (result.status !== 0)
    throw new Error(`heap probe ${reader} exited ${result.status}: ${result.stderr}`);
  return JSON.parse(readFileSync(report, 'utf8')) as HeapReport;
}

describe('tree readers on a long parent', { timeout: 600_000 }, () => {
  let dir = '';
  let size = 0;
  let children = 0;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'spine-tree-heap-'));
    const store = createJsonlStore({ dir, fsync: 'never' });
    children = await writeBigTree(store, 'long', EVENTS);
    await writeBigTree(store, 'short', 60);
    size = statSync(join(dir, 'long.jsonl')).size;
    expect(size).toBeGreaterThan(25_000_000);
  }, 300_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('read the tree, replay it and recover its open child holding a fraction of the log', () => {
    // The control: the measurement sees a log held in memory.
    const whole = probe('whole-load', dir);
    expect(whole.peak - whole.before).toBeGreaterThan(size / 2);
    const growth: Record<string, number> = {};
    for (const reader of ['child-tree', 'replay-tree', 'recover']) {
      const streamed = probe(reader, dir);
      growth[reader] = streamed.peak - streamed.before;
      // Measured (40,000 events, 35 MB): the tree and recovery 2.8 MB, flat from 20,000 to
      // 80,000 events; replay 7.1 MB: its report and each header's recorded seqs grow with the
      // requests (about 650 bytes a request, 5,000 requests here: 4.9 / 7.1 / 11.1 MB at 20k / 40k / 80k events),
      // the surface events it holds do not. The whole load: 59 MB.
      const bound = reader === 'replay-tree' ? size / 3 : size / 4;
      expect(
        growth[reader],
        `${reader}: heap grew ${growth[reader]} bytes for a ${size}-byte log`,
      ).toBeLessThan(bound);
      if (reader === 'child-tree') expect(streamed.summary).toEqual({ children });
      // Every request of the parent and its children is rebuilt and matches; the one link
      // problem is the child the "crash" left open.
      if (reader === 'replay-tree') {
        expect(streamed.summary).toMatchObject({ reportsOk: true, sessions: children + 1 });
        expect(streamed.summary.requests).toBeGreaterThan(4_000);
        expect(streamed.summary.problems).toEqual([
          'the parent has no agent/child/end for this child',
        ]);
      }
      if (reader === 'recover') expect(streamed.summary).toEqual({ recovered: 1 });
    }
    console.log(JSON.stringify({ size, whole: whole.peak - whole.before, ...growth }));
  });
});
