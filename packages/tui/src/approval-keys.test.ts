import { PassThrough } from 'node:stream';
import type { ApprovalRequest } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { approvalKey, createKeyApprover, type RawInput } from './approval-keys.js';
import { styleFor } from './style.js';

const plain = styleFor({ isTTY: false });
const request: ApprovalRequest = {
  toolCallId: 'c1',
  toolName: 'write',
  args: { path: 'big.txt', content: 'x' },
  reason: 'writes a file',
};
const big = Array.from({ length: 60 }, (_, i) => `line ${i}`).join('\n');

/** A terminal-like input that records raw-mode switches. */
function terminal(): {
  input: RawInput & PassThrough;
  modes: boolean[];
  output: PassThrough;
  text: () => string;
} {
  const input = new PassThrough() as RawInput & PassThrough;
  const modes: boolean[] = [];
  input.isRaw = false;
  input.setRawMode = (mode: boolean) => {
    modes.push(mode);
    input.isRaw = mode;
  };
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk) => {
    text += chunk.toString();
  });
  return { input, modes, output, text: () => text };
}

describe('approvalKey', () => {
  it('decides on o, a, d, Esc; v views; Ctrl-C interrupts; other input means nothing', () => {
    expect([approvalKey('o'), approvalKey('A'), approvalKey('d'), approvalKey('\u001b')]).toEqual([
      'once',
      'always',
      'deny',
      'deny',
    ]);
    expect(approvalKey('v')).toBe('view');
    expect(approvalKey('\u0003')).toBe('interrupt');
    expect(approvalKey('\u001b[A')).toBeUndefined();
    expect(approvalKey('\r')).toBeUndefined();
    // A key and its Enter read together (a busy process, a person used to line prompts).
    expect(['d\r', 'O\n', 'a\r\n', '\u001b\r'].map(approvalKey)).toEqual([
      'deny',
      'once',
      'always',
      'deny',
    ]);
    expect(['\r\r', 'dd', 'd\r\r', 'od\r', '\u001b[A\r'].map(approvalKey)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    fc.assert(
      fc.property(fc.string({ minLength: 2 }), (chunk) => {
        // Pasted or multi-byte input never answers: only one deliberate key (and its Enter) does.
        if (/^[^\r\n](\r\n?|\n)$/s.test(chunk)) return;
        if (chunk !== '\u0003') expect(approvalKey(chunk)).toBeUndefined();
      }),
    );
  });
});

describe('createKeyApprover', () => {
  it('answers on one key without Enter, restores raw mode, prints the whole diff on v', async () => {
    const t = terminal();
    const approver = createKeyApprover({
      input: t.input,
      output: t.output,
      style: plain,
      detail: () => ({ diff: { kind: 'write', path: 'big.txt', before: '', after: big } }),
    });
    const answer = approver.approve(request, {});
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.text()).toContain('21 more lines — press v to view all');
    expect(t.modes).toEqual([true]);
    t.input.write('x');
    t.input.write('v');
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.text()).toContain('60 + line 59');
    t.input.write('a');
    expect(await answer).toBe('always');
    expect(t.modes).toEqual([true, false]);
    expect(t.text()).toContain('allowed for this session');
  });

  it('Ctrl-C denies, restores raw mode and then interrupts', async () => {
    const t = terminal();
    let interrupted = 0;
    const approver = createKeyApprover({
      input: t.input,
      output: t.output,
      style: plain,
      onInterrupt: () => interrupted++,
    });
    const answer = approver.approve(request, {});
    t.input.write('\u0003');
    expect(await answer).toBe('deny');
    expect(t.modes).toEqual([true, false]);
    expect(interrupted).toBe(1);
  });

  it('an abort while waiting denies and restores raw mode', async () => {
    const t = terminal();
    const controller = new AbortController();
    const approver = createKeyApprover({ input: t.input, output: t.output, style: plain });
    const answer = approver.approve(request, { signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect(await answer).toBe('deny');
    expect(t.modes).toEqual([true, false]);
  });
});
