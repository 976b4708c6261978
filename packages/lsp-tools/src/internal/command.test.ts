import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findCommand } from './command.js';

const dir = mkdtempSync(join(tmpdir(), 'spine-lsp-command-'));
writeFileSync(join(dir, 'fake-ls'), '#!/bin/sh\n');
chmodSync(join(dir, 'fake-ls'), 0o755);
writeFileSync(join(dir, 'not-executable'), '');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('finding server commands', () => {
  it('looks bare names up on PATH and checks absolute paths', () => {
    expect(findCommand('fake-ls', ['/nonexistent', dir].join(delimiter))).toBe(
      join(dir, 'fake-ls'),
    );
    expect(findCommand('fake-ls', '')).toBeUndefined();
    expect(findCommand('not-executable', dir)).toBeUndefined();
    expect(findCommand(process.execPath, undefined)).toBe(process.execPath);
    expect(findCommand('/nonexistent/server', undefined)).toBeUndefined();
  });
});
