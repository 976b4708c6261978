import { PassThrough } from 'node:stream';
import type { ApprovalRequest } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { approvalQuestion, createLineApprover } from './approval.js';
import { styleFor } from './style.js';

const plain = styleFor({ isTTY: false });
const request = (command: string, child?: string): ApprovalRequest =>
  ({
    toolCallId: `id-${command}`,
    toolName: 'bash',
    args: { command },
    reason: 'runs a command',
    ...(child ? { child: { profile: { name: child } } } : {}),
  }) as ApprovalRequest;

/** Resolves when `text` has been written to `stream`. */
function written(stream: PassThrough, read: () => string, text: string): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (read().includes(text)) {
        stream.off('data', check);
        resolve();
      }
    };
    stream.on('data', check);
    check();
  });
}

describe('approval questions', () => {
  it('labels a subagent’s question with the child', () => {
    expect(approvalQuestion(request('ls', 'explore'), plain)).toMatch(
      /^\? \[explore\] wants to run bash command=ls\n {2}reason: runs a command/,
    );
    expect(approvalQuestion(request('ls', 'explore'), plain, '[explore #2]')).toMatch(
      /^\? \[explore #2\] wants to run bash/,
    );
    expect(approvalQuestion(request('ls'), plain)).toMatch(/^\? allow bash command=ls/);
  });

  it('asks questions that arrive together one after the other, each answered by its own line', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (chunk: Buffer) => {
      shown += chunk.toString('utf8');
    });
    const approver = createLineApprover({ input, output, style: plain });
    const aborted = new AbortController();
    const first = approver.approve(request('echo one', 'explore'), {});
    const second = approver.approve(request('echo two', 'explore'), { signal: aborted.signal });
    const third = approver.approve(request('echo three', 'general'), {});
    await written(output, () => shown, 'command=echo one');
    expect(shown).not.toContain('echo two');
    input.write('o\n');
    await written(output, () => shown, 'command=echo two');
    expect(shown).not.toContain('echo three');
    // A question abandoned while it waits is denied; the next line answers the next question.
    aborted.abort();
    await written(output, () => shown, '[general] wants to run bash command=echo three');
    input.write('a\n');
    expect(await Promise.all([first, second, third])).toEqual(['once', 'deny', 'always']);
    approver.close();
  });
});

describe('approvalQuestion with detail', () => {
  it('shows a bash command with its sandbox and network, and a write as its diff', () => {
    const shell = { sandbox: 'workspace-write', network: 'off' };
    expect(approvalQuestion(request('touch x'), plain, undefined, { shell }).split('\n')[0]).toBe(
      '? allow bash command=touch x · sandbox: workspace-write · network: off',
    );
    const write: ApprovalRequest = {
      toolCallId: 'w',
      toolName: 'write',
      args: { path: 'a.txt', content: 'new\n' },
      reason: 'writes a file',
    };
    const diff = { kind: 'write' as const, path: 'a.txt', before: 'old\n', after: 'new\n' };
    expect(approvalQuestion(write, plain, undefined, { diff }).split('\n')).toEqual([
      '? Write a.txt (+1 −1)',
      '@@ -1,1 +1,1 @@',
      '1 - old',
      '1 + new',
      '  reason: writes a file',
      '  [o]nce  [a]lways for this session  [d]eny › ',
    ]);
  });
});
