// biome-ignore-all lint/suspicious/noControlCharactersInRegex: these tests look for raw control characters.
// The streamed Markdown block's preview in the live region, replayed into a virtual terminal
// (@xterm/headless): while a block is unfinished its last rows show (terminal-safe, wrapped at the
// width); once finished it is printed rendered, and no preview row is ever left in the scrollback.
import { childMonitorFor } from '@spine/harness';
import type { SessionLog } from '@spine/protocol';
import { Terminal } from '@xterm/headless';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markdownPreview } from './markdown/preview.js';
import { renderMarkdown } from './markdown/render.js';
import { createMarkdownStream } from './markdown/stream.js';
import { displayWidth } from './markdown/width.js';
import { SubagentPanel } from './panel.js';
import { styleFor } from './style.js';

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

function lines(term: Terminal): string[] {
  const all: string[] = [];
  for (let row = 0; row < term.buffer.active.length; row++)
    all.push(term.buffer.active.getLine(row)?.translateToString(true) ?? '');
  while (all.at(-1) === '') all.pop();
  return all;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const DOC = [
  '## Plan',
  '',
  `A first paragraph with **bold** words ${'and more words '.repeat(12)}at its end.`,
  '',
  '```sh',
  'echo "\u001b]0;title\u0007"',
  '```',
  '',
  '- one',
  '- two',
  '',
].join('\n');

describe('the preview of the block being streamed', () => {
  it('shows the pending block live and leaves only rendered lines behind', async () => {
    const term = new Terminal({ cols: 40, rows: 10, scrollback: 1000, allowProposedApi: true });
    const { out, raw, flush } = sink(term);
    const style = styleFor({ isTTY: false });
    const panel = new SubagentPanel(
      out,
      style,
      childMonitorFor({ events: () => [], lastSeq: 0 } as unknown as SessionLog),
      { tty: true, columns: () => term.cols },
    );
    const md = createMarkdownStream({ width: 40, style });
    const emit = (done: string[]): void => {
      panel.preview(md.pending());
      if (done.length > 0) panel.write(`${done.join('\n')}\n`);
    };
    let sawPreview = false;
    for (let at = 0; at < DOC.length; at += 20) {
      emit(md.push(DOC.slice(at, at + 20)));
      if (md.pending().includes('**bold** words and more') && !sawPreview) {
        await pause(80);
        await flush();
        const screen = lines(term);
        // The raw (unrendered) text of the unfinished paragraph is the live region.
        expect(screen.join('\n')).toContain('A first paragraph with **bold** words');
        for (const row of screen) expect(displayWidth(row)).toBeLessThanOrEqual(40);
        sawPreview = true;
      }
    }
    const rest = md.end();
    panel.preview('');
    panel.write(`${rest.join('\n')}\n`);
    await pause(80);
    await flush();
    expect(sawPreview).toBe(true);
    expect(lines(term)).toEqual(renderMarkdown(DOC, { width: 40, style }));
    const all = raw.join('');
    // No title change ever reached the terminal, and no screen or scrollback clear was used.
    expect(all).not.toContain('\u001b]0;');
    expect(all).not.toMatch(/\u001b\[[23]J/);
    panel.dispose();
  });

  it('wraps each block at the width asked when it finishes (a resize between blocks)', () => {
    let columns = 60;
    const md = createMarkdownStream({ width: () => columns, style: styleFor({ isTTY: false }) });
    const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu';
    // A block is committed once a later one has begun.
    const first = md.push(`${words}\n\nshort\n`);
    columns = 20;
    const rest = [...md.push(`\n${words}\n\nnext\n`), ...md.end()];
    const plain = styleFor({});
    expect(first).toEqual(renderMarkdown(words, { width: 60, style: plain }));
    expect(Math.max(...rest.map(displayWidth))).toBeLessThanOrEqual(20);
    expect(rest.slice(3, -2)).toEqual(renderMarkdown(words, { width: 20, style: plain }));
    expect(rest.slice(0, 3)).toEqual(['', 'short', '']);
  });

  it('is at most `rows` rows of at most `width` columns, the text’s last ones', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', ' ', '\n', '漢', '\t', '\u001b', 'é') }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 0, max: 8 }),
        (text, width, rows) => {
          const shown = markdownPreview(text, width, rows);
          expect(shown.length).toBeLessThanOrEqual(rows);
          for (const row of shown) {
            expect(displayWidth(row)).toBeLessThanOrEqual(Math.max(width, 2));
            expect(row).not.toMatch(/[\u0000-\u001f]/);
          }
        },
      ),
    );
  });

  it('renders the pending block as it will look once finished, styles and all', () => {
    const style = styleFor({ isTTY: true }, {});
    const paragraph = `Some **bold** and \`code\` ${'word '.repeat(30)}still \u001b]0;pwned\u0007 going`;
    expect(markdownPreview(paragraph, 40, 3, { style })).toEqual(
      renderMarkdown(paragraph, { width: 40, style }).slice(-3),
    );
    // A long fence: its language kept, only the last rows rendered (as in the final block).
    const body = Array.from({ length: 300 }, (_, i) => `const v${i} = ${i};`).join('\n');
    const shown = markdownPreview(`\`\`\`ts\n${body}\ncon`, 40, 4, { style });
    const final = renderMarkdown(`\`\`\`ts\n${body}\ncon\n\`\`\`\n`, { width: 40, style });
    expect(shown).toEqual(final.slice(-4));
    expect(shown.join('\n')).toContain('\u001b[');
    for (const row of [...shown, ...markdownPreview(paragraph, 40, 3, { style })]) {
      // Only our own SGR and OSC 8 sequences: model text stays inert.
      expect(
        row.replace(/\u001b\[[0-9;]*m|\u001b\]8;[^\u0007\u001b]*(?:\u0007|\u001b\\)/g, ''),
      ).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    }
  });
});
