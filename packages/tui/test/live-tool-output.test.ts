// A real shell command's multi-line output, streamed by a real agent session (bash in the
// sandbox, scripted model server on 127.0.0.1), replayed into a virtual terminal (@xterm/headless):
// real lines on screen, the hostile bytes inert, long output folded with the way to the full text.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { loadConfig, startAgentSession } from '@spine/harness';
import { createScriptedModelServer } from '@spine/llm/testing';
import { Terminal } from '@xterm/headless';
import { afterAll, describe, expect, it } from 'vitest';
import { attachLiveOutput, styleFor } from '../src/index.js';

const created: string[] = [];
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Everything written to a stream, and the same bytes replayed into an 80×30 virtual terminal. */
function terminalSink(): { stream: PassThrough; raw: () => string; term: Terminal } {
  const stream = new PassThrough();
  const term = new Terminal({ cols: 80, rows: 30, scrollback: 1000, allowProposedApi: true });
  let raw = '';
  stream.on('data', (chunk: Buffer) => {
    raw += chunk.toString('utf8');
  });
  return { stream, raw: () => raw, term };
}

/** The terminal's lines, scrollback included, trailing blanks dropped. */
async function screen(term: Terminal, raw: string): Promise<string[]> {
  await new Promise<void>((resolve) => term.write(raw.replace(/\n/g, '\r\n'), resolve));
  const lines: string[] = [];
  for (let row = 0; row < term.buffer.active.length; row++) {
    lines.push(term.buffer.active.getLine(row)?.translateToString(true) ?? '');
  }
  while (lines.at(-1) === '') lines.pop();
  return lines;
}

// Two lines with a tab, a progress bar redrawn with CR, then the hostile corpus: clear screen and
// scrollback, cursor home, OSC 52 clipboard, OSC 0 title, C1 CSI, a bidi override; then 30 lines.
const COMMAND = [
  "printf 'first\\tcol\\nsecond\\n'",
  "printf '10%%\\r100%%\\n'",
  "printf 'x\\033[2J\\033[3J\\033[H\\033]52;c;aGVsbG8=\\007\\033]0;pwned\\007\\302\\233\\342\\200\\256evil\\n'",
  'seq 1 30',
].join('; ');

describe('live tool output on a terminal', () => {
  it('shows a shell command output as real lines, inert, folded past the limit', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'spine-tui-output-'));
    created.push(workspace);
    const server = await createScriptedModelServer({
      replies: [
        { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: COMMAND }) }] },
        { text: 'Done.' },
      ],
    });
    const { config } = loadConfig({
      cwd: workspace,
      env: {
        ...process.env,
        OPENAI_API_KEY: 'loopback',
        SPINE_CONFIG_HOME: join(workspace, 'config-home'),
      },
      flags: {
        model: 'openai-compatible/deepseek-v4-flash',
        baseUrl: server.baseUrl,
        sessionDir: join(workspace, 'sessions'),
      },
    });
    const active = await startAgentSession({
      config,
      cwd: workspace,
      lsp: false,
      web: false,
      approve: async () => 'once',
    });
    const sink = terminalSink();
    const detach = attachLiveOutput(
      active.agent,
      { text: sink.stream, notices: sink.stream },
      styleFor({ isTTY: false }),
      { outputLines: 6 },
    );
    let title = '';
    sink.term.onTitleChange((next) => {
      title = next;
    });
    try {
      const result = await active.agent.run('Run it.', { signal: AbortSignal.timeout(60_000) });
      expect(result.reason).toBe('completed');
      const lines = await screen(sink.term, sink.raw());
      expect(lines.slice(0, 8)).toEqual([
        expect.stringMatching(/^ {2}→ bash command=/),
        '    │ first     col', // the tab moved to column 16
        '    │ second',
        '    │ 100%',
        '    │ x\\x1b[2J\\x1b[3J\\x1b[H\\x1b]52;c;aGVsbG8=\\x07\\x1b]0;pwned\\x07\\x9b\\u202eevil',
        '    │ 1',
        '    │ 2',
        `    … 28 more lines (full output: spine show ${active.session.id} --events)`,
      ]);
      expect(lines[8]).toMatch(/^ {2}✓ bash /);
      expect(lines.at(-1)).toBe('Done.');
      expect(title).toBe('');
      expect(sink.term.buffer.active.cursorX).toBe(0);
    } finally {
      detach();
      await active.finish('test done');
      await server.close();
    }
  }, 60_000);
});
