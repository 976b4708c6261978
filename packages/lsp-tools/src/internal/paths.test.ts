import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LspPathRefusedError } from '../errors.js';
import { displayPath, findWorkspaceFile, isInside, resolveInWorkspace } from './paths.js';

let root: string;
let workspace: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'spine-lsp-paths-')));
  workspace = join(root, 'ws');
  mkdirSync(join(workspace, 'node_modules/pkg'), { recursive: true });
  mkdirSync(join(workspace, 'src/deep'), { recursive: true });
  writeFileSync(join(workspace, 'node_modules/pkg/index.ts'), '');
  writeFileSync(join(workspace, 'src/deep/b.ts'), '');
  writeFileSync(join(workspace, 'src/a.py'), '');
  writeFileSync(join(root, 'secret.ts'), '');
  symlinkSync(join(root, 'secret.ts'), join(workspace, 'src/escape.ts'));
  symlinkSync(join(workspace, 'src/deep/b.ts'), join(workspace, 'src/inner.ts'));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('workspace paths', () => {
  it('tells inside from outside without being fooled by shared prefixes', () => {
    expect(isInside('/a/ws', '/a/ws')).toBe(true);
    expect(isInside('/a/ws', '/a/ws/x/y.ts')).toBe(true);
    expect(isInside('/a/ws', '/a/ws2/y.ts')).toBe(false);
    expect(isInside('/a/ws', '/a/y.ts')).toBe(false);
    expect(isInside('/a/ws', '/a/ws/..foo')).toBe(true);
  });

  it('resolves relative and absolute paths and follows links that stay inside', () => {
    expect(resolveInWorkspace(workspace, 'src/deep/b.ts')).toBe(join(workspace, 'src/deep/b.ts'));
    expect(resolveInWorkspace(workspace, join(workspace, 'src/a.py'))).toBe(
      join(workspace, 'src/a.py'),
    );
    expect(resolveInWorkspace(workspace, 'src/inner.ts')).toBe(join(workspace, 'src/deep/b.ts'));
  });

  it('refuses .. escapes, symlink escapes, missing files and empty paths with a reason', () => {
    expect(() => resolveInWorkspace(workspace, '../secret.ts')).toThrow(LspPathRefusedError);
    expect(() => resolveInWorkspace(workspace, 'src/../../secret.ts')).toThrow(
      /outside the workspace/,
    );
    expect(() => resolveInWorkspace(workspace, 'src/escape.ts')).toThrow(
      /is a link to .*secret.ts, outside the workspace/,
    );
    expect(() => resolveInWorkspace(workspace, 'src/missing.ts')).toThrow(
      /does not exist in the workspace/,
    );
    expect(() => resolveInWorkspace(workspace, '  ')).toThrow(/A file path is required/);
  });

  it('shows paths relative to the workspace with forward slashes', () => {
    expect(displayPath(workspace, join(workspace, 'src/deep/b.ts'))).toBe('src/deep/b.ts');
  });

  it('finds a seed file breadth first, skipping node_modules and symlinks', async () => {
    expect(await findWorkspaceFile(workspace, ['.ts'])).toBe(join(workspace, 'src/deep/b.ts'));
    expect(await findWorkspaceFile(workspace, ['.py'])).toBe(join(workspace, 'src/a.py'));
    expect(await findWorkspaceFile(workspace, ['.go'])).toBeUndefined();
  });
});
