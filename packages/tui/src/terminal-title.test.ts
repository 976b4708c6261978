import { describe, expect, it } from 'vitest';
import { TerminalTitle, terminalTitleEnabled, windowTitle } from './terminal-title.js';

function sink(isTTY = true) {
  const chunks: string[] = [];
  return { isTTY, chunks, write: (text: string) => chunks.push(text) };
}

describe('the terminal title channels', () => {
  it('set the window title (OSC 2) and progress (OSC 9;4), then restore both', () => {
    const out = sink();
    const title = new TerminalTitle(out, '/work/shop', true);
    title.set('Fix the build');
    title.progress(true);
    title.progress(true);
    title.progress(false);
    title.progress(true);
    title.restore();
    expect(out.chunks).toEqual([
      '\u001b[22;2t\u001b]2;shop · Fix the build\u0007',
      '\u001b]9;4;3\u0007',
      '\u001b]9;4;0\u0007',
      '\u001b]9;4;3\u0007',
      '\u001b]9;4;0\u0007',
      '\u001b]2;\u0007\u001b[23;2t',
    ]);
  });

  it('write nothing when disabled, not a TTY, or SPINE_TERMINAL_TITLE=0', () => {
    expect(terminalTitleEnabled(sink(false), {})).toBe(false);
    expect(terminalTitleEnabled(sink(), { SPINE_TERMINAL_TITLE: '0' })).toBe(false);
    expect(terminalTitleEnabled(sink(), { SPINE_TERMINAL_TITLE: 'off' })).toBe(false);
    expect(terminalTitleEnabled(sink(), {}, false)).toBe(false);
    expect(terminalTitleEnabled(sink(), { SPINE_TERMINAL_TITLE: '1' })).toBe(true);
    const out = sink();
    const title = new TerminalTitle(out, '/work/shop', false);
    title.set('x');
    title.progress(true);
    title.restore();
    expect(out.chunks).toEqual([]);
  });

  it('never lets a title or folder name end the sequence or move the cursor', () => {
    const text = windowTitle(
      '/tmp/evil\u0007\u001b[2J',
      `a\u001b]2;pwned\u0007\u009b${'x'.repeat(200)}`,
    );
    expect(text).not.toMatch(/[\p{Cc}]/u);
    expect([...text].length).toBeLessThanOrEqual(80);
    expect(text.startsWith('evil [2J · a ]2;pwned')).toBe(true);
    expect(windowTitle('/')).toBe('spine · spine');
  });
});
