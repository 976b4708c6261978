// The live region (the subagent panel under the output) replayed into a virtual terminal
// (@xterm/headless): finished lines are appended once and never touched again, only the panel is
// redrawn, each redraw one synchronized update (DEC mode 2026), never a screen or scrollback clear
// nor a scroll region; resizing mid-stream (wider, narrower, twice) loses no line.
import { childMonitorFor } from '@spine/harness';
import type { SessionLog } from '@spine/protocol';
import { Terminal } from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { SubagentPanel } from './panel.js';
import { styleFor } from './style.js';

/** Everything written, replayed in order into the terminal (line feeds as a tty's CR LF). */
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
      queue = queue.then(
        () => new Promise<void>((resolve) => term.write(text.replace(/\n/g, '\r\n'), resolve)),
      );
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  return { out, raw, flush: () => queue };
}

/** The terminal's lines, scrollback included, trailing blank lines dropped. */
function lines(term: Terminal): string[] {
  const all: string[] = [];
  for (let row = 0; row < term.buffer.active.length; row++) {
    all.push(term.buffer.active.getLine(row)?.translateToString(true) ?? '');
  }
  while (all.at(-1) === '') all.pop();
  return all;
}

/**
 * Waits until the panel has drawn after a resize: it draws once the size settles (its quiet time
 * is 350 ms), in one write. Waiting for that write rather than for a fixed time: on a busy
 * machine the panel's timer can fire after a fixed wait has ended, and the test then wrote the
 * next line into a region still waiting to be drawn, which is not the case it means to check.
 */
async function settled(raw: string[]): Promise<void> {
  const before = raw.length;
  const deadline = performance.now() + 10_000;
  while (raw.length === before) {
    if (performance.now() > deadline) throw new Error('the panel never drew after the resize');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A real child monitor of an empty session. */
function newMonitor(): ReturnType<typeof childMonitorFor> {
  return childMonitorFor({ events: () => [], lastSeq: 0 } as unknown as SessionLog);
}

/** A started child as the monitor's progress event carries it. */
function child(n: number): Record<string, unknown> {
  return {
    sessionId: `child-${n}`,
    toolCallId: `call-${n}`,
    profile: { name: 'finder' },
    description: `look ${n} ${'x'.repeat(40)}`,
    depth: 1,
    sandbox: 'read-only',
  };
}

describe('the live region on a terminal', () => {
  it('redraws only the panel, synchronized, and keeps every finished line through resizes', async () => {
    const term = new Terminal({ cols: 80, rows: 12, scrollback: 1000, allowProposedApi: true });
    const { out, raw, flush } = sink(term);
    const monitor = newMonitor();
    const panel = new SubagentPanel(out, styleFor({ isTTY: false }), monitor, {
      tty: true,
      columns: () => term.cols,
    });
    monitor.onProgress({ type: 'start', child: child(1) } as never);
    monitor.onProgress({ type: 'start', child: child(2) } as never);
    const resizes: Record<number, number> = { 10: 120, 20: 40, 30: 30, 31: 70 };
    for (let n = 1; n <= 40; n++) {
      panel.write(`finished line ${n}\n`);
      const cols = resizes[n];
      if (cols !== undefined) {
        await flush();
        term.resize(cols, 12);
        panel.resize();
        await settled(raw);
      }
    }
    await flush();
    const shown = lines(term);
    // Every finished line once, in order, nothing stale between them; the panel once, at the end.
    expect(shown).toEqual([
      ...Array.from({ length: 40 }, (_, i) => `finished line ${i + 1}`),
      expect.stringMatching(/^ {2}⋯ \[finder #1\] look 1 x+.*…$/),
      expect.stringMatching(/^ {2}⋯ \[finder #2\] look 2 x+.*…$/),
    ]);
    const all = raw.join('');
    // Flicker budget: no full-screen clear, no scrollback clear, no scroll region, counted.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: counting escape sequences is the point.
    const clears = all.match(/\x1b\[2J|\x1b\[3J|\x1b\[\d*;?\d*r/g) ?? [];
    expect(clears).toHaveLength(0);
    // Every in-place change (a lift) is inside one synchronized update, written in one piece.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding cursor-up is the point.
    const lifts = raw.filter((chunk) => /\x1b\[\d+A/.test(chunk));
    expect(lifts.length).toBeGreaterThanOrEqual(40);
    for (const chunk of lifts) {
      expect(chunk.startsWith('\u001b[?2026h')).toBe(true);
      expect(chunk.endsWith('\u001b[?2026l')).toBe(true);
    }
    panel.dispose();
  });

  it('draws once after resizes back to back, at the final width, leaving no stale row', async () => {
    const term = new Terminal({ cols: 100, rows: 30, scrollback: 1000, allowProposedApi: true });
    const { out, raw, flush } = sink(term);
    // The terminal's present width (as an ioctl reads it); the resize signal comes later.
    const panel = new SubagentPanel(out, styleFor({ isTTY: false }), newMonitor(), {
      tty: true,
      columns: () => term.cols,
    });
    const live = (n: number) => [
      `tick-${n} ${'0'.repeat(120)}`,
      `tick-${n + 1} ${'1'.repeat(120)}`,
    ];
    panel.write('finished line 1\n');
    panel.setLive('call-1', live(1));
    await flush();
    // The terminal reflows at once on each resize while the program's writes are still on their
    // way (the sink replays them later): the race a dragged window makes.
    let n = 2;
    const written = raw.length;
    for (const cols of [60, 140, 50, 40, 30, 120, 35, 90]) {
      term.resize(cols, 30);
      panel.write(`finished line ${n}\n`);
      panel.setLive('call-1', live(n++));
      panel.resize();
    }
    // Nothing is written until the size settles.
    expect(raw.length).toBe(written);
    await settled(raw);
    await flush();
    expect(lines(term)).toEqual([
      ...Array.from({ length: n - 1 }, (_, i) => `finished line ${i + 1}`),
      // Cut to fit 90 columns: drawn for the final width.
      `    │ tick-${n - 1} ${'0'.repeat(75)}…`,
      `    │ tick-${n} ${'1'.repeat(74)}…`,
    ]);
    panel.dispose();
  });

  it("shows running tools' last lines in the live region and erases them when the call ends", async () => {
    const term = new Terminal({ cols: 40, rows: 8, scrollback: 100, allowProposedApi: true });
    const { out, raw, flush } = sink(term);
    const panel = new SubagentPanel(out, styleFor({ isTTY: false }), newMonitor(), {
      tty: true,
      columns: () => term.cols,
    });
    panel.write('  → bash command=make\n');
    panel.setLive('call-1', ['building a.o', `tab\there ${'y'.repeat(60)}`]);
    await flush();
    expect(lines(term)).toEqual([
      '  → bash command=make',
      '    │ building a.o',
      `    │ tab    here ${'y'.repeat(20)}…`,
    ]);
    panel.setLive('call-1', undefined);
    panel.write('  ✓ bash done\n');
    await flush();
    expect(lines(term)).toEqual(['  → bash command=make', '  ✓ bash done']);
    expect(raw.join('')).not.toContain('\u001b[2J');
    panel.dispose();
  });

  it('appends plain lines off a terminal: no live region, no escape sequence', () => {
    const raw: string[] = [];
    const out = { write: (text: string) => raw.push(text) } as unknown as NodeJS.WriteStream;
    const monitor = newMonitor();
    const panel = new SubagentPanel(out, styleFor({ isTTY: false }), monitor, {
      tty: false,
      columns: () => 80,
    });
    monitor.onProgress({ type: 'start', child: child(1) } as never);
    panel.write('finished line 1\n');
    panel.resize();
    expect(raw.join('')).toBe(
      `  ↳ [finder #1] started: ${child(1).description}\nfinished line 1\n`,
    );
    panel.dispose();
  });
});
