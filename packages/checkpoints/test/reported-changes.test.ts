// A checkpoint's reported changes are read from the index (`diff-index --cached`, in parallel with
// write-tree); they must equal what a diff of the two stored trees says, whatever the step did:
// add, modify, delete, chmod, replace a file by a symbolic link, grow a file past the size cap,
// recorded by a whole scan or by known paths (including paths that do not exist).
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createGitCheckpointStore } from '../src/index.js';

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await fs.rm(root, { recursive: true, force: true });
});

const NAMES = ['a.txt', 'b/c.txt', 'b/d/e.txt', 'f g.txt', 'h/i.txt'] as const;
type Action = 'write' | 'delete' | 'chmod' | 'link' | 'big';
const operation = fc.record({
  name: fc.constantFrom(...NAMES),
  action: fc.constantFrom<Action>('write', 'write', 'delete', 'chmod', 'link', 'big'),
  text: fc.string({ maxLength: 20 }),
});

async function apply(workspace: string, op: { name: string; action: Action; text: string }) {
  const path = join(workspace, op.name);
  await fs.mkdir(join(path, '..'), { recursive: true });
  await fs.rm(path, { force: true });
  if (op.action === 'delete') return;
  if (op.action === 'link') return fs.symlink(`target-${op.text.length}`, path);
  if (op.action === 'big') return fs.writeFile(path, Buffer.alloc(300, op.text.length));
  await fs.writeFile(path, `${op.name}:${op.text}`);
  if (op.action === 'chmod') await fs.chmod(path, 0o755);
}

describe('reported changes', () => {
  it('equal the diff of the stored trees, by whole scan and by known paths', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ ops: fc.array(operation, { maxLength: 4 }), known: fc.boolean() }), {
          minLength: 1,
          maxLength: 5,
        }),
        async (steps) => {
          const root = await fs.mkdtemp(join(tmpdir(), 'spine-changes-'));
          roots.push(root);
          const workspace = join(root, 'ws');
          await fs.mkdir(workspace);
          for (const name of NAMES) await apply(workspace, { name, action: 'write', text: '0' });
          const store = createGitCheckpointStore({
            workspace,
            directory: join(root, 'store'),
            maxFileBytes: 256,
          });
          let previous = (await store.checkpoint()).id;
          for (const step of steps) {
            for (const op of step.ops) await apply(workspace, op);
            const paths = [...step.ops.map((op) => op.name), 'never-there.txt'];
            const checkpoint = await store.checkpoint(step.known ? { paths } : {});
            expect(checkpoint.previous).toBe(previous);
            const byTrees = await store.diff(previous, checkpoint.id);
            const order = (a: { path: string }, b: { path: string }) =>
              a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
            expect([...checkpoint.changes].sort(order)).toEqual([...byTrees].sort(order));
            previous = checkpoint.id;
          }
          await fs.rm(root, { recursive: true, force: true });
        },
      ),
      { numRuns: 15 },
    );
  }, 240_000);
});
