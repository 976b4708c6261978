import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { checkWorkspaceReference, fileReferencesOf, searchWorkspaceFiles } from './file-search.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'spine-search-'));
  roots.push(root);
  const cwd = join(root, 'ws');
  mkdirSync(join(cwd, 'src', 'deep'), { recursive: true });
  mkdirSync(join(cwd, 'node_modules', 'pkg'), { recursive: true });
  writeFileSync(join(cwd, 'src', 'app.ts'), 'x');
  writeFileSync(join(cwd, 'src', 'deep', 'apple.ts'), 'x');
  writeFileSync(join(cwd, 'node_modules', 'pkg', 'app.js'), 'x');
  writeFileSync(join(root, 'secret.txt'), 'x');
  symlinkSync(join(root, 'secret.txt'), join(cwd, 'escape.txt'));
  symlinkSync(join(cwd, 'src', 'app.ts'), join(cwd, 'inside.ts'));
  return cwd;
}

describe('searchWorkspaceFiles', () => {
  it('returns paths and kinds, prefix matches first, honouring excludes', () => {
    const cwd = workspace();
    const results = searchWorkspaceFiles(cwd, 'src/', { exclude: ['node_modules/**'] });
    expect(results).toEqual([
      { path: 'src/', kind: 'directory' },
      { path: 'src/app.ts', kind: 'file' },
      { path: 'src/deep/', kind: 'directory' },
      { path: 'src/deep/apple.ts', kind: 'file' },
    ]);
    const apps = searchWorkspaceFiles(cwd, 'app', { exclude: ['node_modules/**'] }).map(
      (r) => r.path,
    );
    expect(apps).toContain('src/deep/apple.ts');
    expect(apps.some((path) => path.startsWith('node_modules'))).toBe(false);
  });

  it('refuses .. and absolute queries and skips symlinks that escape the workspace', () => {
    const cwd = workspace();
    expect(searchWorkspaceFiles(cwd, '../secret')).toEqual([]);
    expect(searchWorkspaceFiles(cwd, '/etc/passwd')).toEqual([]);
    const all = searchWorkspaceFiles(cwd, '').map((r) => r.path);
    expect(all).not.toContain('escape.txt');
    expect(all).toContain('inside.ts');
  });

  it('checks one @path reference against the boundary, excludes and the disk', () => {
    const cwd = workspace();
    expect(checkWorkspaceReference(cwd, 'src/app.ts')).toBe('ok');
    expect(checkWorkspaceReference(cwd, 'src/')).toBe('ok');
    expect(checkWorkspaceReference(cwd, 'src/nope.ts')).toBe('missing');
    expect(checkWorkspaceReference(cwd, '../secret.txt')).toBe('refused');
    expect(checkWorkspaceReference(cwd, '/etc/passwd')).toBe('refused');
    expect(checkWorkspaceReference(cwd, 'escape.txt')).toBe('refused');
    expect(
      checkWorkspaceReference(cwd, 'node_modules/pkg/app.js', { exclude: ['node_modules/**'] }),
    ).toBe('refused');
  });

  it('stops at the result limit', () => {
    const cwd = workspace();
    expect(searchWorkspaceFiles(cwd, '', { limit: 2 })).toHaveLength(2);
  });
});

describe('hostile references and queries', () => {
  it('never accepts a path out of the workspace and never lists one', () => {
    const cwd = workspace();
    const segment = fc.constantFrom('..', '.', 'src', 'escape.txt', 'secret.txt', '', '/', '\\');
    const reference = fc
      .array(fc.oneof(segment, fc.string({ maxLength: 6 })), { maxLength: 6 })
      .map((parts) => parts.join('/'));
    fc.assert(
      fc.property(fc.oneof(reference, fc.string({ maxLength: 20 })), (input) => {
        const verdict = checkWorkspaceReference(cwd, input);
        const parts = input.replaceAll('\\', '/').split('/');
        if (parts.includes('..') || input.startsWith('/') || input.startsWith('\\'))
          expect(verdict).toBe('refused');
        if (input.replace(/[/\\]+$/, '') === 'escape.txt') expect(verdict).toBe('refused');
        for (const result of searchWorkspaceFiles(cwd, input)) {
          expect(result.path.split('/')).not.toContain('..');
          expect(result.path).not.toBe('escape.txt');
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('helpers', () => {
  it('finds @references in a line', () => {
    expect(fileReferencesOf('fix @src/a.ts and @b.md please')).toEqual(['src/a.ts', 'b.md']);
  });
});
