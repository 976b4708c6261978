import { SpineError } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PathRefusedError } from './errors.js';
import { DEFAULT_PROTECTED_PATHS, isProtectedPath } from './protected-paths.js';

describe('isProtectedPath', () => {
  it('protects git config, hooks, commondir, submodule config and Spine configuration', () => {
    for (const path of [
      '.git',
      '.git/config',
      '.git/config.worktree',
      '.git/commondir',
      '.git/hooks',
      '.git/hooks/pre-commit',
      '.git/hooks/sub/dir/x',
      '.git/worktrees/feature/config.worktree',
      '.git/modules/vendor/lib/config',
      '.git/modules/vendor/hooks/post-checkout',
      '.spine',
      '.spine/config.json',
      '.spine/hooks/on-start.sh',
      '.husky/pre-commit',
    ]) {
      expect(isProtectedPath(path), path).toBe(true);
    }
  });

  it('leaves ordinary files, git objects and tracked git metadata writable', () => {
    for (const path of [
      '.',
      'src/index.ts',
      '.git/objects/ab/cdef',
      '.git/index',
      '.git/HEAD',
      '.git/refs/heads/main',
      '.git/configx',
      '.gitmodules',
      '.gitattributes',
      'sub/.git/config',
      'docs/.spine.md',
      'spine/config',
    ]) {
      expect(isProtectedPath(path), path).toBe(false);
    }
  });

  it('normalises the path before matching (./, //, trailing slash, inner ..) and ignores case', () => {
    expect(isProtectedPath('./.git/config')).toBe(true);
    expect(isProtectedPath('.git//hooks/')).toBe(true);
    expect(isProtectedPath('src/../.git/config')).toBe(true);
    expect(isProtectedPath('.GIT/Config')).toBe(true);
    expect(isProtectedPath('.Spine/x')).toBe(true);
  });

  it('uses the given patterns instead of the defaults', () => {
    expect(isProtectedPath('secrets/key.pem', ['secrets/**'])).toBe(true);
    expect(isProtectedPath('.git/config', ['secrets/**'])).toBe(false);
    expect(isProtectedPath('.git/config', [])).toBe(false);
  });

  it('refuses paths that are not workspace-relative with a typed error', () => {
    for (const bad of ['', '/etc/passwd', '../outside', 'a/../../b', 'a\0b']) {
      let caught: unknown;
      try {
        isProtectedPath(bad);
      } catch (error) {
        caught = error;
      }
      expect(caught, JSON.stringify(bad)).toBeInstanceOf(PathRefusedError);
      expect(SpineError.isInstance(caught)).toBe(true);
    }
  });

  it('exports a frozen default list', () => {
    expect(Object.isFrozen(DEFAULT_PROTECTED_PATHS)).toBe(true);
    expect(DEFAULT_PROTECTED_PATHS).toEqual(
      expect.arrayContaining(['.git/config', '.git/hooks/**', '.spine/**']),
    );
  });

  it('answers or throws PathRefusedError for any string, and protects everything under .git/hooks', () => {
    fc.assert(
      fc.property(fc.string(), (path) => {
        try {
          expect(typeof isProtectedPath(path)).toBe('boolean');
        } catch (error) {
          expect(error).toBeInstanceOf(PathRefusedError);
        }
      }),
    );
    const segment = fc
      .stringMatching(/^[A-Za-z0-9_.-]{1,12}$/)
      .filter((s) => s !== '.' && s !== '..');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), (parts) => {
        expect(isProtectedPath(`.git/hooks/${parts.join('/')}`)).toBe(true);
        expect(isProtectedPath(`.spine/${parts.join('/')}`)).toBe(true);
      }),
    );
  });
});
