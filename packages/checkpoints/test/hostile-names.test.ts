// Hostile input at the store's boundaries: file names with glob characters, spaces, leading
// dashes, quotes, backslashes and non-ASCII text go through checkpoint (whole and by path), the
// size cap's exclusion and restore unchanged; `--to` values parse or are refused, never misread.
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createGitCheckpointStore, parseRewindTarget } from '../src/index.js';

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await fs.rm(root, { recursive: true, force: true });
});

const nameCharacter = fc.constantFrom(...Array.from('abcXYZ019 -_.*?[]!#\'"\\$&;()~^{}=+,@%é漢🙂'));
const fileName = fc
  .array(nameCharacter, { minLength: 1, maxLength: 12 })
  .map((characters) => characters.join(''))
  .filter((name) => name !== '.' && name !== '..' && name !== '.git' && !name.startsWith('.git'));

describe('hostile file names', () => {
  it('survive checkpoint, the size cap and restore byte-identically', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fileName, {
          minLength: 2,
          maxLength: 6,
          selector: (name) => name.normalize(),
        }),
        async (names) => {
          const root = await fs.mkdtemp(join(tmpdir(), 'spine-hostile-'));
          roots.push(root);
          const workspace = join(root, 'ws');
          await fs.mkdir(workspace);
          const store = createGitCheckpointStore({
            workspace,
            directory: join(root, 'store'),
            maxFileBytes: 64,
          });
          const [big, ...rest] = names as [string, ...string[]];
          for (const name of rest) await fs.writeFile(join(workspace, name), `before ${name}`);
          const first = await store.checkpoint();
          // An over-cap file with a glob-like name must not hide the others.
          await fs.writeFile(join(workspace, big), Buffer.alloc(200, 1));
          for (const name of rest) await fs.writeFile(join(workspace, name), `after ${name}`);
          const second = await store.checkpoint({ paths: rest });
          expect(second.changes.map((change) => change.path).sort()).toEqual([...rest].sort());
          const third = await store.checkpoint();
          expect(third.skipped).toEqual([big]);
          await store.restore(first.id);
          for (const name of rest) {
            expect(await fs.readFile(join(workspace, name), 'utf8')).toBe(`before ${name}`);
          }
          expect((await fs.stat(join(workspace, big))).size).toBe(200);
          await fs.rm(root, { recursive: true, force: true });
        },
      ),
      { numRuns: 12 },
    );
  }, 240_000);
});

describe('parseRewindTarget', () => {
  it('reads turns, steps and seqs, and refuses everything else', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (turn, step) => {
        expect(parseRewindTarget(String(turn))).toEqual({ turn });
        expect(parseRewindTarget(`${turn}.${step}`)).toEqual({ turn, step });
        expect(parseRewindTarget(`@${turn}`)).toEqual({ seq: turn });
      }),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseRewindTarget(text);
        if (parsed === undefined) return;
        const values = Object.values(parsed) as number[];
        expect(values.every((value) => Number.isSafeInteger(value) && value >= 0)).toBe(true);
        expect(text.trim()).toMatch(/^(@|seq:|turn:)?\d+(\.\d+)?$/);
      }),
    );
  });
});
