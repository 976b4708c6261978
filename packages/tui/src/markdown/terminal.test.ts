// Rendered Markdown replayed in a virtual terminal (@xterm/headless): hostile model text stays
// inert, and a long answer streamed in small chunks arrives whole in the scrollback.
import xterm from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { styleFor } from '../style.js';
import { renderMarkdown } from './render.js';
import { createMarkdownStream } from './stream.js';
import { stripAnsi } from './width.js';

const { Terminal } = xterm;
const COLOUR = styleFor({ isTTY: true }, {});
const ESC = '\u001b';
const BEL = '\u0007';

interface Replay {
  lines: string[];
  title: string;
  clipboard: string[];
  cursorY: number;
}

async function replay(output: string, cols: number, scrollback = 20_000): Promise<Replay> {
  const term = new Terminal({ cols, rows: 24, scrollback, allowProposedApi: true });
  let title = '';
  const clipboard: string[] = [];
  term.onTitleChange((t) => {
    title = t;
  });
  term.parser.registerOscHandler(52, (data) => {
    clipboard.push(data);
    return true;
  });
  await new Promise<void>((resolve) => term.write(output.replace(/\n/g, '\r\n'), resolve));
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let y = 0; y < buffer.length; y++)
    lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  const cursorY = buffer.baseY + buffer.cursorY;
  term.dispose();
  return { lines, title, clipboard, cursorY };
}

const HOSTILE = [
  `# Title ${ESC}]0;pwned${BEL} and ${ESC}]2;pwned2${ESC}\\`,
  '',
  `Copy ${ESC}]52;c;cm0gLXJmIH4=${BEL} this **bold ${ESC}[2J${ESC}[H**`,
  '',
  `- item ${ESC}[1A${ESC}[2K up \u009b31m c1 \u202eevil`,
  `- [link ${ESC}[5m](https://example.com/${ESC}]52;c;eA==${BEL})`,
  '',
  '| a | b |',
  '|---|---|',
  `| ${ESC}[31mred | ${ESC}]8;;https://example.test${ESC}\\x${ESC}]8;;${ESC}\\ |`,
  '',
  '```',
  `code ${ESC}[3J ${ESC}c reset ${ESC}P+q${ESC}\\`,
  '```',
  '',
  `> quote \r over${ESC}[10;10H`,
].join('\n');

describe('hostile Markdown in a virtual terminal', () => {
  it.each([true, false])(
    'changes no title, writes no clipboard, moves no cursor (hyperlinks %s)',
    async (hyperlinks) => {
      const lines = renderMarkdown(HOSTILE, { width: 60, style: COLOUR, hyperlinks });
      const shown = await replay(`${lines.join('\n')}\n`, 60);
      expect(shown.title).toBe('');
      expect(shown.clipboard).toEqual([]);
      // Every rendered line landed on its own row, in order: nothing moved the cursor or erased.
      expect(shown.lines.length).toBe(lines.length);
      expect(shown.cursorY).toBe(lines.length);
      expect(shown.lines.map((l) => l.trimEnd())).toEqual(lines.map((l) => stripAnsi(l).trimEnd()));
      const text = shown.lines.join('\n');
      for (const shownBytes of [
        '\\x1b]0;pwned\\x07',
        '\\x1b]52;c;cm0gLXJmIH4=\\x07',
        '\\x1b[2J',
        '\\x9b31m',
        '\\u202e',
        '\\x1b[3J',
        '\\x1bc',
      ]) {
        expect(text).toContain(shownBytes);
      }
    },
  );
});

function mixedMarkdown(lines: number): string {
  const blocks = [
    '## Section {i}\n',
    'A paragraph {i} with *emphasis*, **strong**, `code` and a [link](https://example.com/{i}) that runs long enough to wrap at eighty columns in the terminal.\n',
    '- item {i}\n- second {i}\n  1. nested {i}\n',
    '| col | 説明 |\n|---|---|\n| {i} | 漢字 👍🏽 e\u0301 |\n',
    '```ts\nconst value{i} = {i};\n```\n',
    '> quoted {i}\n',
  ];
  const out: string[] = [];
  let count = 0;
  for (let i = 0; count < lines; i++) {
    const block = (blocks[i % blocks.length] as string).replaceAll('{i}', String(i));
    out.push(block);
    count += block.split('\n').length;
  }
  return out.join('\n');
}

describe('a long streamed answer', () => {
  it('streams 5,000 lines in 20-byte chunks with the scrollback complete', async () => {
    const text = mixedMarkdown(5000);
    expect(text.split('\n').length).toBeGreaterThanOrEqual(5000);
    const stream = createMarkdownStream({ width: 80, style: COLOUR, hyperlinks: true });
    let output = '';
    for (let i = 0; i < text.length; i += 20) {
      for (const line of stream.push(text.slice(i, i + 20))) output += `${line}\n`;
    }
    for (const line of stream.end()) output += `${line}\n`;
    const whole = renderMarkdown(text, { width: 80, style: COLOUR, hyperlinks: true });
    const shown = await replay(output, 80, whole.length + 10);
    expect(shown.lines.map((l) => l.trimEnd())).toEqual(whole.map((l) => stripAnsi(l).trimEnd()));
    expect(shown.lines.length).toBeGreaterThan(5000);
  }, 30_000);
});
