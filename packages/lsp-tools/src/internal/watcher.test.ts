import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FileChange, globToRegExp, WorkspaceWatcher } from './watcher.js';

describe('globToRegExp', () => {
  it('matches the glob forms servers register', () => {
    expect(globToRegExp('**').test('app/mod.py')).toBe(true);
    expect(globToRegExp('**/*.{py,pyi}').test('app/deep/mod.pyi')).toBe(true);
    expect(globToRegExp('**/*.{py,pyi}').test('mod.py')).toBe(true);
    expect(globToRegExp('**/*.{py,pyi}').test('mod.pyc')).toBe(false);
    expect(globToRegExp('**/pyrightconfig.json').test('sub/pyrightconfig.json')).toBe(true);
    expect(globToRegExp('src/*.ts').test('src/a/b.ts')).toBe(false);
  });

  it('never throws and treats regular-expression characters literally', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const literal = text.replace(/[*?{},[\]]/g, '');
        expect(globToRegExp(literal).test(literal)).toBe(true);
      }),
    );
  });
});

describe('WorkspaceWatcher', () => {
  it('reports files created, renamed and deleted by anyone, and new folders, but not node_modules', async () => {
    const root = mkdtempSync(join(tmpdir(), 'spine-lsp-watch-'));
    mkdirSync(join(root, 'node_modules'));
    const seen: FileChange[] = [];
    const watcher = new WorkspaceWatcher(root, (changes) => seen.push(...changes));
    await watcher.start();
    const until = async (check: () => boolean): Promise<void> => {
      const deadline = Date.now() + 10_000;
      while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    };
    const has = (path: string, type: number) => () =>
      seen.some((change) => change.path === join(root, path) && change.type === type);
    try {
      writeFileSync(join(root, 'a.py'), 'x = 1\n');
      await until(has('a.py', 1));
      renameSync(join(root, 'a.py'), join(root, 'b.py'));
      await until(has('b.py', 1));
      mkdirSync(join(root, 'pkg'));
      writeFileSync(join(root, 'pkg', 'c.py'), 'y = 2\n');
      await until(has('pkg/c.py', 1));
      rmSync(join(root, 'b.py'));
      await until(has('b.py', 3));
      writeFileSync(join(root, 'node_modules', 'skip.py'), '');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(has('a.py', 1)()).toBe(true);
      expect(has('a.py', 3)()).toBe(true);
      expect(has('b.py', 1)()).toBe(true);
      expect(has('pkg/c.py', 1)()).toBe(true);
      expect(has('b.py', 3)()).toBe(true);
      expect(seen.some((change) => change.path.includes('node_modules'))).toBe(false);
    } finally {
      watcher.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
