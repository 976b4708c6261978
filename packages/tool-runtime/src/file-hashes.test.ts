import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, runOne } from '../test/helpers.js';
import { createToolRuntime, type ToolRuntime } from './runtime.js';
import { createWorkspaceTools } from './workspace-tools.js';

let temp: { dir: string; cleanup: () => void };
let runtime: ToolRuntime;
const sha = (bytes: string | Buffer) =>
  `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

beforeEach(() => {
  temp = makeTempDir();
  runtime = createToolRuntime({
    cwd: temp.dir,
    tools: createWorkspaceTools({ cwd: temp.dir }),
    approval: 'never-ask',
  });
});
afterEach(() => temp.cleanup());

describe('pre- and post-content hashes of mutating file tools', () => {
  it('write records no pre-image for a new file and the hash of what it wrote', async () => {
    const result = await runOne(runtime, 'write', { path: 'n.txt', content: 'new ✓\n' });
    expect(result.meta).toMatchObject({ preHash: null, postHash: sha('new ✓\n') });
    expect(sha(readFileSync(join(temp.dir, 'n.txt')))).toBe(result.meta?.postHash);
  });

  it('write and edit record the hash before and after on an existing file', async () => {
    writeFileSync(join(temp.dir, 'a.txt'), 'one\ntwo\n');
    await runOne(runtime, 'read', { path: 'a.txt' });
    const edit = await runOne(runtime, 'edit', {
      path: 'a.txt',
      edits: [{ oldText: 'two', newText: 'three' }],
    });
    expect(edit.meta).toMatchObject({ preHash: sha('one\ntwo\n'), postHash: sha('one\nthree\n') });
    const write = await runOne(runtime, 'write', { path: 'a.txt', content: 'x' });
    expect(write.meta).toMatchObject({ preHash: sha('one\nthree\n'), postHash: sha('x') });
  });
});
