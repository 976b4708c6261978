// Shell hooks confined like the agent's shell commands (real bwrap, real processes).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxMode } from '@spine/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createBwrapSandbox,
  createSandboxedHookRunner,
  createShellHooks,
  type SandboxBackend,
  type ShellHookConfig,
} from '../src/index.js';
import { makeTempDir } from './helpers.js';

let root: { dir: string; cleanup: () => void };
let backend: SandboxBackend;

beforeEach(() => {
  root = makeTempDir('spine-hook-sandbox-');
  mkdirSync(join(root.dir, 'ws'));
  backend = createBwrapSandbox({});
});

afterEach(() => {
  backend.close?.();
  root.cleanup();
});

function hooksFor(command: string): ShellHookConfig {
  return {
    'session-start': [],
    'pre-tool-use': [],
    'post-tool-use': [],
    'pre-compact': [],
    stop: [command],
  };
}

describe('createSandboxedHookRunner', () => {
  it('confines hooks to the mode in force: workspace writes only, then none, then anything', async () => {
    expect(backend.info.enforces).toContain('workspace-write');
    const ws = join(root.dir, 'ws');
    const outside = join(root.dir, 'outside.txt');
    let mode: SandboxMode = 'workspace-write';
    const warnings: string[] = [];
    const shell = createShellHooks({
      cwd: ws,
      hooks: hooksFor(`cat > event.json; echo x > ${outside}; echo done > after.txt`),
      sessionId: () => 's1',
      run: createSandboxedHookRunner({ backend, mode: () => mode }),
      onWarning: (warning) => warnings.push(warning),
    });
    await shell.fire('stop', { reason: 'done' });
    expect(JSON.parse(readFileSync(join(ws, 'event.json'), 'utf8'))).toMatchObject({
      event: 'stop',
      sessionId: 's1',
      reason: 'done',
    });
    expect(readFileSync(join(ws, 'after.txt'), 'utf8')).toBe('done\n');
    expect(existsSync(outside)).toBe(false);

    mode = 'read-only';
    const readOnly = createShellHooks({
      cwd: ws,
      hooks: hooksFor('echo ro > read-only.txt'),
      sessionId: () => 's1',
      run: createSandboxedHookRunner({ backend, mode: () => mode }),
      onWarning: (warning) => warnings.push(warning),
    });
    await readOnly.fire('stop', {});
    expect(existsSync(join(ws, 'read-only.txt'))).toBe(false);
    expect(warnings.at(-1)).toMatch(/^stop hook "echo ro > read-only.txt" exited [1-9]/);

    mode = 'danger-full-access';
    await shell.fire('stop', {});
    expect(readFileSync(outside, 'utf8')).toBe('x\n');
  }, 60_000);

  it('runs unconfined when there is no backend, as shell commands do', async () => {
    const ws = join(root.dir, 'ws');
    const outside = join(root.dir, 'no-backend.txt');
    const shell = createShellHooks({
      cwd: ws,
      hooks: hooksFor(`echo y > ${outside}`),
      sessionId: () => 's1',
      run: createSandboxedHookRunner({ backend: null, mode: () => 'read-only' }),
    });
    await shell.fire('stop', {});
    expect(readFileSync(outside, 'utf8')).toBe('y\n');
  }, 60_000);
});
