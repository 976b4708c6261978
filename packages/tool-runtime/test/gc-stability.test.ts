import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/gc-between-batches.ts', import.meta.url));
// The scheduler's and executor's hot functions (names as V8 reports them).
const HOT =
  /SharedFunctionInfo (advance|pump|settle|commit|accept|executed|emit|track|untrack|executeCall|CallExecution|start|invoke|isResult)>.*reason: weak objects/;

describe('optimised pipeline code across full GCs', () => {
  it('is not deoptimised by a GC between batches (the shapes of batches and executions survive)', () => {
    const batches = 40;
    const child = spawnSync(
      process.execPath,
      ['--expose-gc', '--trace-deopt', '--import', 'tsx', fixture, String(batches)],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
    );
    expect(child.stderr).not.toMatch(/Error/);
    expect(child.stdout).toContain(`done ${batches}`);
    const deopts = child.stdout.split('\n').filter((line) => HOT.test(line));
    // Before the shape anchors every GC deoptimised most of these functions (hundreds of lines for
    // 40 batches); a few while the JIT settles are fine.
    expect(deopts.length).toBeLessThan(batches / 4);
  });
});
