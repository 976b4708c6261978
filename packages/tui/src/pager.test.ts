// biome-ignore-all lint/suspicious/noControlCharactersInRegex: these tests look for raw control characters.
// The pager replayed into a virtual terminal (@xterm/headless): it draws on the alternate screen
// only, pages and scrolls by key, rewraps on resize, and closing it returns the normal screen
// and its scrollback exactly as they were.
import { Terminal } from '@xterm/headless';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayWidth, stripAnsi } from './markdown/width.js';
import { wrapRows } from './markdown/wrap.js';
import { Pager } from './pager.js';

function sink(term: Terminal): {
  out: NodeJS.WriteStream;
  raw: string[];
  flush: () => Promise<void>;
} {
  const raw: string[] = [];
  let queue = Promise.resolve();
  const out = {
    write(text: string) {
      raw.push(text);
      queue = queue.then(() => new Promise<void>((resolve) => term.write(text, resolve)));
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  return { out, raw, flush: () => queue };
}

/** The active buffer's lines (scrollback included for the normal screen). */
function lines(term: Terminal): string[] {
  const all: string[] = [];
  const buffer = term.buffer.active;
  for (let row = 0; row < buffer.length; row++)
    all.push(buffer.getLine(row)?.translateToString(true) ?? '');
  return all;
}

/** The visible rows of the active buffer. */
function screen(term: Terminal): string[] {
  const buffer = term.buffer.active;
  return Array.from(
    { length: term.rows },
    (_, row) => buffer.getLine(buffer.viewportY + row)?.translateToString(true) ?? '',
  );
}

describe('Pager', () => {
  it('browses on the alternate screen and leaves the normal screen and scrollback as they were', async () => {
    const term = new Terminal({ cols: 40, rows: 10, allowProposedApi: true, scrollback: 1000 });
    const { out, raw, flush } = sink(term);
    // 30 lines of history: 20 of them in the scrollback.
    out.write(Array.from({ length: 30 }, (_, i) => `history ${i + 1}`).join('\r\n'));
    out.write('\r\n› ');
    await flush();
    const before = lines(term);
    const cursor = [term.buffer.active.cursorX, term.buffer.active.cursorY];

    let size = { rows: 10, columns: 40 };
    const content = [
      ...Array.from({ length: 50 }, (_, i) => `entry ${i + 1}`),
      `\u001b[1mbold and long ${'word '.repeat(12)}\u001b[22m`,
    ];
    const pager = new Pager(content, {
      output: out,
      rows: () => size.rows,
      columns: () => size.columns,
    });
    pager.open();
    await flush();
    expect(term.buffer.active.type).toBe('alternate');
    expect(screen(term).slice(0, 9)).toEqual(Array.from({ length: 9 }, (_, i) => `entry ${i + 1}`));
    expect(screen(term)[9]).toMatch(/^transcript · lines 1–9 of 52 · q returns/);
    expect(pager.key('j')).toBe('open');
    expect(pager.key(' ')).toBe('open');
    await flush();
    expect(screen(term)[0]).toBe('entry 10');
    pager.key('G');
    await flush();
    // The long styled line cut into two rows of 40 columns, nothing lost.
    expect(screen(term)[6]).toBe('entry 50');
    expect(screen(term)[7]).toHaveLength(40);
    expect(screen(term).slice(7, 9).join('').replace(/ /g, '')).toBe(
      `boldandlong${'word'.repeat(12)}`,
    );
    pager.key('k');
    pager.key('g');
    await flush();
    expect(screen(term)[0]).toBe('entry 1');
    size = { rows: 6, columns: 20 };
    term.resize(20, 6);
    pager.resize();
    await flush();
    expect(screen(term)[5]).toMatch(/^transcript · lines 1/);
    size = { rows: 10, columns: 40 };
    term.resize(40, 10);
    pager.resize();
    expect(pager.key('q')).toBe('closed');
    await flush();
    expect(term.buffer.active.type).toBe('normal');
    expect(lines(term)).toEqual(before);
    expect([term.buffer.active.cursorX, term.buffer.active.cursorY]).toEqual(cursor);
    // Never a clear of the normal screen or the scrollback, no scroll region; every draw synchronized.
    const written = raw.join('');
    expect(written).not.toMatch(/\u001b\[[23]J/);
    expect(written).not.toMatch(/\u001b\[\d*;?\d*r/);
    const draws = raw.filter((text) => text.includes('\u001b[H'));
    expect(draws.length).toBeGreaterThan(4);
    for (const draw of draws) expect(draw).toMatch(/^\u001b\[\?2026h[\s\S]*\u001b\[\?2026l$/);
    expect(pager.key('j')).toBe('closed');
  });

  it('closes on Esc and Ctrl-C too', () => {
    for (const key of ['\u001b', '\u0003', 'Q']) {
      const written: string[] = [];
      const pager = new Pager(['one'], {
        output: { write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream,
        rows: () => 5,
        columns: () => 20,
      });
      pager.open(true);
      expect(pager.key(key)).toBe('closed');
      expect(pager.isOpen).toBe(false);
      expect(written.at(-1)).toContain('\u001b[?1049l');
    }
  });

  it('wraps any line into rows no wider than the screen, keeping every character', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b ', ' ', '漢', '👍', 'é', '\u001b[1m', '\u001b[22m')),
        fc.integer({ min: 1, max: 30 }),
        (parts, width) => {
          const line = parts.join('');
          const rows = wrapRows(line, width);
          for (const row of rows) expect(displayWidth(row)).toBeLessThanOrEqual(Math.max(width, 2));
          expect(rows.map(stripAnsi).join('')).toBe(stripAnsi(line));
        },
      ),
    );
  });
});
