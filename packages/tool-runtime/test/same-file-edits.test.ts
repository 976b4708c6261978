import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime, createWorkspaceTools, type ToolRuntime } from '../src/index.js';
import { makeTempDir, runOne, toolCall } from './helpers.js';

let temp: { dir: string; cleanup: () => void };
let file: string;
const ORIGINAL = 'alpha\nbeta\ngamma\ndelta\n';

function newRuntime(): ToolRuntime {
  return createToolRuntime({
    cwd: temp.dir,
    tools: createWorkspaceTools({ cwd: temp.dir }),
    approval: 'never-ask',
  });
}
const edit = (oldText: string, newText: string) =>
  toolCall('edit', { path: 'f.txt', edits: [{ oldText, newText }] });

beforeEach(() => {
  temp = makeTempDir('spine-edits-');
  file = join(temp.dir, 'f.txt');
  writeFileSync(file, ORIGINAL);
});
afterEach(() => temp.cleanup());

describe('edits of one file never lose writes', () => {
  it('two edits of the same file in one batch both land', async () => {
    const runtime = newRuntime();
    const results = await runtime.run([
      toolCall('read', { path: 'f.txt' }),
      edit('alpha', 'ALPHA'),
      edit('gamma', 'GAMMA'),
    ]);
    expect(results.map((result) => result.outcome)).toEqual(['ok', 'ok', 'ok']);
    expect(readFileSync(file, 'utf8')).toBe('ALPHA\nbeta\nGAMMA\ndelta\n');
  });

  it('twenty edits of one file from concurrent batches all land', async () => {
    const runtime = newRuntime();
    const lines = Array.from({ length: 20 }, (_, i) => `line-${String(i).padStart(2, '0')}`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    await runOne(runtime, 'read', { path: 'f.txt' });
    const batches = lines.map((line) => runtime.run([edit(line, line.toUpperCase())]));
    const results = (await Promise.all(batches)).flat();
    expect(results.filter((result) => result.outcome !== 'ok')).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe(
      `${lines.map((line) => line.toUpperCase()).join('\n')}\n`,
    );
  });

  it('refuses an edit after an outside change and tells the model to read again', async () => {
    const runtime = newRuntime();
    await runOne(runtime, 'read', { path: 'f.txt' });
    writeFileSync(file, 'alpha\nchanged outside\n');
    const refused = await runOne(runtime, 'edit', {
      path: 'f.txt',
      edits: [{ oldText: 'alpha', newText: 'ALPHA' }],
    });
    expect(refused.isError).toBe(true);
    expect(refused.content).toMatch(/changed on disk since you last read it; read it again/);
    expect(readFileSync(file, 'utf8')).toBe('alpha\nchanged outside\n');
    const overwrite = await runOne(runtime, 'write', { path: 'f.txt', content: 'clobber' });
    expect(overwrite.content).toMatch(/read it again/);
    await runOne(runtime, 'read', { path: 'f.txt' });
    expect(
      (
        await runOne(runtime, 'edit', {
          path: 'f.txt',
          edits: [{ oldText: 'alpha', newText: 'ALPHA' }],
        })
      ).outcome,
    ).toBe('ok');
    expect(readFileSync(file, 'utf8')).toBe('ALPHA\nchanged outside\n');
  });

  it('two agents with their own runtimes: the second edit is refused instead of silently lost', async () => {
    const first = newRuntime();
    const second = newRuntime();
    await runOne(first, 'read', { path: 'f.txt' });
    await runOne(second, 'read', { path: 'f.txt' });
    const [a, b] = await Promise.all([
      runOne(first, 'edit', { path: 'f.txt', edits: [{ oldText: 'beta', newText: 'BETA' }] }),
      runOne(second, 'edit', { path: 'f.txt', edits: [{ oldText: 'delta', newText: 'DELTA' }] }),
    ]);
    expect([a!.outcome, b!.outcome].sort()).toEqual(['error', 'ok']);
    const loser = a!.outcome === 'error' ? a! : b!;
    expect(loser.content).toMatch(/changed on disk since you last read it; read it again/);
    expect(['alpha\nBETA\ngamma\ndelta\n', 'alpha\nbeta\ngamma\nDELTA\n']).toContain(
      readFileSync(file, 'utf8'),
    );
  });
});
