// A hostile corpus appended to the recorded example session as a second turn: every field a
// person might read carries markup, event handlers, javascript: links, SVG with script, ANSI,
// bidi and C1 controls, and one tool output is a 10 MB single line. Nothing in it may run.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unchainedExampleEvents } from './fixtures.js';

/** Markup that would run script, were it ever parsed as HTML by the browser. */
export const HOSTILE_MARKUP = [
  '<script>window.__pwned = "script"; alert(1)</script>',
  '<img src=x onerror="window.__pwned = \'img\'; alert(2)">',
  '<svg onload="window.__pwned = \'svg\'"><script>alert(3)</script></svg>',
  '<a href="javascript:alert(4)" onclick="alert(5)">click</a>',
  '<iframe src="https://example.com/"></iframe>',
  '"><body onload=alert(6)>',
  "'><style>body{background:url(https://example.com/x)}</style>",
].join(' ');

/** ANSI, C1 and bidi controls. */
export const HOSTILE_CONTROLS =
  'red:\u001b[31mRED\u001b[0m c1:\u009b2J bidi:\u202eevil\u202c zw:\u200b bell:\u0007';

/** Markdown whose links and images must not become live (except the http one). */
export const HOSTILE_MARKDOWN = [
  '# answer',
  '[js](javascript:alert(7)) [data](data:text/html,<script>alert(8)</script>) [vb](vbscript:x)',
  '![img](https://example.com/beacon.png) [ok](https://example.com/docs) [mail](mailto:a@example.com)',
  '[entity](jav&#x61;script:alert(9)) <b onmouseover=alert(10)>raw html</b>',
  HOSTILE_MARKUP,
  HOSTILE_CONTROLS,
].join('\n\n');

/** The size of the single-line tool output. */
export const BIG_OUTPUT_BYTES = 10 * 1024 * 1024;

/** Writes the example session (unchained) and the hostile turn as `<dir>/<id>.jsonl`; its path. */
export function writeHostileSession(dir: string, id: string): string {
  const lines = unchainedExampleEvents();
  const header = lines[0] as { body: Record<string, unknown> };
  header.body.sessionId = id;
  header.body.title = `title ${HOSTILE_MARKUP} ${HOSTILE_CONTROLS}`;
  let seq = lines.length;
  const at = '2026-11-30T09:50:00.000Z';
  const turn = 2;
  const add = (type: string, body: object, extra: object = {}) =>
    lines.push({ seq: ++seq, type, at, turn, step: 1, body, ...extra });
  const append = { surfaceOp: { op: 'append' } };
  add('turn/start', {});
  add('user/message', { content: HOSTILE_MARKDOWN, source: 'user' }, append);
  const name = `write<script>alert(11)</script>${HOSTILE_CONTROLS}`;
  add(
    'assistant/message',
    {
      content: [
        { type: 'reasoning', text: HOSTILE_MARKUP },
        { type: 'text', text: HOSTILE_MARKDOWN },
        {
          type: 'tool-call',
          id: 'hostile_1',
          name,
          arguments: JSON.stringify({ path: HOSTILE_MARKUP, content: HOSTILE_CONTROLS }),
        },
        {
          type: 'tool-call',
          id: 'hostile_2',
          name: 'write',
          arguments: JSON.stringify({
            path: `a.html${HOSTILE_CONTROLS}`,
            content: `${HOSTILE_MARKUP}\nline`,
          }),
        },
        {
          type: 'tool-call',
          id: 'hostile_3',
          name: 'bash',
          arguments: '{"command":"yes | head -c 10485760"}',
        },
      ],
      finishReason: 'tool-calls',
    },
    append,
  );
  add('tool/approval', {
    toolCallId: 'hostile_1',
    toolName: name,
    decision: 'deny',
    by: HOSTILE_MARKUP,
    reason: HOSTILE_CONTROLS,
    scope: 'rule',
  });
  add(
    'tool/result',
    {
      toolCallId: 'hostile_1',
      toolName: name,
      content: HOSTILE_MARKUP,
      isError: true,
      outcome: 'denied',
      meta: { sandbox: HOSTILE_CONTROLS },
    },
    append,
  );
  add(
    'tool/result',
    {
      toolCallId: 'hostile_2',
      toolName: 'write',
      content: `wrote ${HOSTILE_CONTROLS}`,
      isError: false,
      outcome: 'unknown',
    },
    append,
  );
  add(
    'tool/result',
    {
      toolCallId: 'hostile_3',
      toolName: 'bash',
      content: `<script>alert(12)</script>${'y'.repeat(BIG_OUTPUT_BYTES)}`,
      isError: false,
      meta: { sandbox: 'workspace-write' },
    },
    append,
  );
  add('turn/end', { reason: 'completed', steps: 1 });
  const path = join(dir, `${id}.jsonl`);
  writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  return path;
}
