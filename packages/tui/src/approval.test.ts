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
