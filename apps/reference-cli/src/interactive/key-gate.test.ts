import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { KeyGate, PASTED_BREAK, pastedText, type TerminalInput } from './key-gate.js';

/** A terminal input that can hang up: `setRawMode` throws EIO once `gone` is set. */
class FakeTerminal extends EventEmitter implements TerminalInput {
  gone = false;
  modes: boolean[] = [];
  setRawMode(mode: boolean): void {
    if (this.gone) throw Object.assign(new Error('setRawMode EIO'), { code: 'EIO' });
    this.modes.push(mode);
  }
  resume(): void {}
  pause(): void {}
}

function collect(gate: KeyGate): () => string {
  let text = '';
  gate.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return () => text;
}

describe('KeyGate', () => {
  it('passes a bracketed paste on as one line, its breaks kept as symbols, across chunks', async () => {
    const input = new FakeTerminal();
    const gate = new KeyGate(input);
    const text = collect(gate);
    input.emit('data', Buffer.from('ab\u001b[200~one\r\ntwo\n'));
    input.emit('data', Buffer.from('three\rfour\u001b[201~\r'));
    await new Promise((resolve) => setImmediate(resolve));
    const B = PASTED_BREAK;
    expect(text()).toBe(`abone${B}two${B}three${B}four\r`);
    expect(pastedText(`one${B}two`)).toBe('one\ntwo');
  });

  it('emits hangup once and stops switching raw mode when the terminal goes away', () => {
    const input = new FakeTerminal();
    const gate = new KeyGate(input);
    let hangups = 0;
    gate.on('hangup', () => hangups++);
    gate.setRawMode(true);
    input.gone = true;
    // EIO from the dead terminal is not thrown to readline.
    expect(() => gate.setRawMode(false)).not.toThrow();
    input.emit('error', Object.assign(new Error('read EIO'), { code: 'EIO' }));
    input.emit('end');
    expect(gate.gone).toBe(true);
    expect(hangups).toBe(1);
    expect(input.modes).toEqual([true]);
  });
});
