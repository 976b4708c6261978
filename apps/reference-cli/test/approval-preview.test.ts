import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApprovalRequest } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { diffPreviewOf } from '../src/interactive/approval-preview.js';
import { tempFolder } from './run-cli.js';

const request = (toolName: string, args: object): ApprovalRequest => ({
  toolCallId: 'c1',
  toolName,
  args: args as ApprovalRequest['args'],
  reason: 'changes a file',
});

describe('diffPreviewOf', () => {
  const root = join(tempFolder('spine-preview-'), 'ws');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'a.txt'), 'one\ntwo\n');
  writeFileSync(join(root, '..', 'secret.txt'), 'outside\n');
  symlinkSync('../secret.txt', join(root, 'link.txt'));

  it('gives the before and after of a write (new or existing) and of an edit', () => {
    expect(diffPreviewOf(root, request('write', { path: 'new.txt', content: 'x\n' }))).toEqual({
      kind: 'write',
      path: 'new.txt',
      before: '',
      after: 'x\n',
    });
    expect(
      diffPreviewOf(
        root,
        request('edit', { path: 'a.txt', edits: [{ oldText: 'two', newText: '2' }] }),
      ),
    ).toEqual({ kind: 'edit', path: 'a.txt', before: 'one\ntwo\n', after: 'one\n2\n' });
  });

  it('reads nothing outside the workspace (.. or a symbolic link) and ignores other tools', () => {
    expect(
      diffPreviewOf(root, request('write', { path: '../secret.txt', content: 'x' })),
    ).toBeUndefined();
    expect(
      diffPreviewOf(root, request('write', { path: 'link.txt', content: 'x' })),
    ).toBeUndefined();
    expect(diffPreviewOf(root, request('bash', { command: 'ls' }))).toBeUndefined();
    expect(
      diffPreviewOf(
        root,
        request('edit', { path: 'a.txt', edits: [{ oldText: 'zzz', newText: '2' }] }),
      ),
    ).toBeUndefined();
  });
});
