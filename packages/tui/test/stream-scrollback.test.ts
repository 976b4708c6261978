// biome-ignore-all lint/suspicious/noControlCharactersInRegex: these tests count raw escape sequences.
// 5,000 lines of mixed Markdown streamed as the CLI streams an answer (Markdown committed block by
// block, the unfinished block previewed in the live region, a running tool's last lines under it),
// replayed into a virtual terminal (@xterm/headless) that is resized mid-stream: wider, narrower,
// and twice in a row. Screen and scrollback together hold every finished line exactly once, in
// order, and no preview or tool row; the flicker budget (no screen or scrollback clear, no scroll
// region, no erase reaching above the live region) is counted over everything written.
import { childMonitorFor } from '@spine/harness';
import type { SessionLog } from '@spine/protocol';
import { Terminal } from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { createMarkdownStream } from '../src/markdown/stream.js';
import { SubagentPanel } from '../src/panel.js';
import { styleFor } from '../src/style.js';

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
  // Until nothing more is queued: a preview redraw may be written while earlier writes drain.
  const flush = async (): Promise<void> => {
    let seen: Promise<void>;
    do {
      seen = queue;
      await seen;
    } while (seen !== queue);
  };
  return { out, raw, flush };
}

/** Screen and scrollback as logical lines: rows the terminal wrapped are joined again. */
function logicalLines(term: Terminal): string[] {
  const buffer = term.buffer.active;
  const all: string[] = [];
  for (let row = 0; row < buffer.length; row++) {
    const line = buffer.getLine(row);
    const text = line?.translateToString(true) ?? '';
    if (line?.isWrapped && all.length > 0) all[all.length - 1] += text;
    else all.push(text);
  }
  while (all.at(-1) === '') all.pop();
  return all.map((line) => line.trimEnd());
}

/** The visible screen rows only. */
function screenRows(term: Terminal): string[] {
  const buffer = term.buffer.active;
  const rows: string[] = [];
  for (let row = 0; row < term.rows; row++)
    rows.push(buffer.getLine(buffer.viewportY + row)?.translateToString(true) ?? '');
  return rows;
}

/** One of six kinds of block, each carrying a marker unique in the document (`m<n>`). */
function block(n: number): string[] {
  switch (n % 6) {
    case 0:
      return [`## Section m${n}`];
    case 1:
      return [
        `A paragraph m${n} with **bold**, _emphasis_ and \`code\` ${'word '.repeat(n % 17)}end.`,
      ];
    case 2:
      return [`- item m${n}a`, `- item m${n}b with ~~struck~~ text`, `  1. nested m${n}c`];
    case 3:
      return ['```ts', `const m${n} = ${n};`, `// comment m${n}x`, '```'];
    case 4:
      return [`> quoted m${n} ${'wide 漢字 '.repeat(n % 5)}line`];
    default:
      return [`| key | value m${n} |`, '| --- | --- |', `| row m${n}r | ${'x'.repeat(n % 30)} |`];
  }
}

/** The document: blocks separated by blank lines until it has at least `lines` lines. */
function documentOf(lines: number): { text: string; markers: string[] } {
  const out: string[] = [];
  const markers: string[] = [];
  for (let n = 0; out.length < lines; n++) {
    out.push(...block(n), '');
    markers.push(`m${n}`);
  }
  return { text: out.join('\n'), markers };
}

/** How often each marker occurs in `lines`, as whole words. */
function markerCounts(lines: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines)
    for (const match of line.matchAll(/\bm(\d+)[a-z]?\b/g)) {
      const key = `m${match[1]}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  return counts;
}

describe('streaming 5,000 lines of Markdown into a terminal that is resized', () => {
  it('keeps every finished line once in the scrollback, redraws only the live region', async () => {
    const term = new Terminal({ cols: 80, rows: 24, scrollback: 100_000, allowProposedApi: true });
    const { out, raw, flush } = sink(term);
    const style = styleFor({ isTTY: false });
    const panel = new SubagentPanel(
      out,
      style,
      childMonitorFor({ events: () => [], lastSeq: 0 } as unknown as SessionLog),
      { tty: true, columns: () => term.cols },
    );
    // The width is asked at each commit, as the CLI does (`width: () => columns`).
    const md = createMarkdownStream({ width: () => term.cols - 1, style });
    const { text, markers } = documentOf(5000);
    expect(text.split('\n').length).toBeGreaterThanOrEqual(5000);
    const committed: string[] = [];
    const commit = (done: readonly string[]): void => {
      panel.preview(md.pending());
      if (done.length === 0) return;
      committed.push(...done);
      panel.write(`${done.join('\n')}\n`);
    };
    // Wider, narrower, then narrower and wider again back to back; a tool runs throughout.
    const chunk = 97;
    const at = (fraction: number) => Math.floor((text.length * fraction) / chunk) * chunk;
    const resizes = new Map([
      [at(0.2), 120],
      [at(0.45), 40],
      [at(0.7), 30],
      [at(0.7) + chunk, 100],
    ]);
    let tick = 0;
    for (let offset = 0; offset < text.length; offset += chunk) {
      commit(md.push(text.slice(offset, offset + chunk)));
      if (offset % (chunk * 50) === 0)
        panel.setLive('call-1', [`tool line ${++tick}`, `tool line ${++tick}`]);
      const cols = resizes.get(offset);
      if (cols !== undefined) {
        await flush();
        term.resize(cols, 24);
        panel.resize();
        await flush();
        // Just after a resize the live region sits at the bottom, drawn once.
        const shown = screenRows(term).filter((row) => row.startsWith('    │ tool line'));
        expect(shown).toHaveLength(2);
      }
    }
    commit(md.end());
    panel.preview('');
    panel.setLive('call-1', undefined);
    panel.dispose();
    await flush();

    const shown = logicalLines(term);
    // Nothing lost, nothing duplicated, nothing left of the live region: the terminal holds
    // exactly the committed lines, in order (trailing spaces aside, which a terminal drops).
    expect(shown).toEqual(committed.map((line) => line.trimEnd()));
    const counts = markerCounts(shown);
    const expected = markerCounts(text.split('\n'));
    for (const marker of markers) expect(counts.get(marker), marker).toBe(expected.get(marker));
    expect(shown.some((line) => line.includes('tool line'))).toBe(false);

    // Flicker budget: zero full redraws while streaming.
    const all = raw.join('');
    expect(all.match(/\x1b\[[23]J|\x1b\[\d*;?\d*r|\x1b\[H|\x1bc/g) ?? []).toHaveLength(0);
    // Each erase (CSI J) follows a lift of at most the live region's height, inside one
    // synchronized update; nothing above the live region is ever cleared.
    let lifts = 0;
    for (const piece of raw) {
      const lift = /\x1b\[(\d+)A\r\x1b\[J/.exec(piece);
      if (!piece.includes('\x1b[J')) continue;
      expect(lift, JSON.stringify(piece.slice(0, 40))).not.toBeNull();
      // Two tool lines and at most a few preview rows, each wrapped at most 4 times (120 → 30).
      expect(Number(lift?.[1])).toBeLessThanOrEqual(4 * 8);
      expect(piece.startsWith('\x1b[?2026h')).toBe(true);
      expect(piece.endsWith('\x1b[?2026l')).toBe(true);
      lifts++;
    }
    expect(lifts).toBeGreaterThan(100);
  }, 120_000);
});
