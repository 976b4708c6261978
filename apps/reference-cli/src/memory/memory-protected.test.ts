import { DEFAULT_PROTECTED_PATHS, isProtectedPath } from '@spine/tool-runtime';
import { describe, expect, it } from 'vitest';
import { runtimeProtectedPaths } from './memory-protected.js';

describe('the protected paths the runtime enforces in the CLI', () => {
  it('leave out only the project memory file', () => {
    const patterns = runtimeProtectedPaths(DEFAULT_PROTECTED_PATHS);
    expect(isProtectedPath('.spine/memory.md', patterns)).toBe(false);
    for (const path of [
      '.spine',
      '.spine/config.json',
      '.spine/hooks/pre-tool-use.sh',
      '.spine/memory.md.bak',
      '.spine/memory.md/x',
      '.spine/sub/memory.md',
      '.git/config',
      '.git/hooks/pre-commit',
    ])
      expect(isProtectedPath(path, patterns)).toBe(true);
    expect(runtimeProtectedPaths(['secrets/**'])).toEqual(['secrets/**']);
  });
});
