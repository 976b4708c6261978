// What a model, a tool or an MCP server supplies reaches the person's terminal only as visible
// text: no control or escape sequence, bidi mark or zero-width character survives into a prompt
// or a transcript line, and an approval question still shows every argument the tool will get.
import type { ApprovalRequest, JsonValue, SessionEvent } from '@spine/protocol';
import { visibleText } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { approvalQuestion } from './approval.js';
import { describeElicitation } from './elicitation.js';
import { styleFor } from './style.js';
import { transcriptLines } from './transcript.js';

const plain = styleFor({ isTTY: false });

/** Characters a terminal acts on or hides, written out here apart from the code under test. */
const ACTED_ON =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]/;

/** Text with the characters a hostile source would use: ESC sequences, CR, bidi, zero-width. */
const hostileChar = fc.constantFrom(
  'a',
  'Z',
  ' ',
  '=',
  '"',
  '日',
  '🙂',
  '\n',
  '\r',
  '\t',
  '\u001b',
  '[',
  '2J',
  '\u0007',
  '\u009b',
  '\u007f',
  '\u202e',
  '\u2066',
  '\u200b',
  '\ufeff',
  '\u2028',
);
const hostile = fc.array(hostileChar, { maxLength: 40 }).map((parts) => parts.join(''));
const argName = fc.stringMatching(/^[a-z_]{1,8}$/).filter((name) => name !== 'escalation');
const argValue: fc.Arbitrary<JsonValue> = fc.oneof(
  hostile,
  fc.integer(),
  fc.boolean(),
  fc.array(hostile, { maxLength: 3 }),
  fc.dictionary(argName, hostile, { maxKeys: 2 }),
);

describe('approval questions for any arguments', () => {
  it('carry no control sequence and show every argument in full', () => {
    fc.assert(
      fc.property(
        hostile,
        fc.dictionary(argName, argValue, { maxKeys: 4 }),
        hostile,
        (toolName, args, reason) => {
          const request: ApprovalRequest = { toolCallId: 'c1', toolName, args, reason };
          const question = approvalQuestion(request, plain);
          expect(question).not.toMatch(ACTED_ON);
          expect(question.endsWith('[o]nce  [a]lways for this session  [d]eny › ')).toBe(true);
          for (const value of Object.values(args)) {
            const text = typeof value === 'string' ? value : JSON.stringify(value);
            for (const line of visibleText(text, { keepLineBreaks: true }).split('\n'))
              expect(question).toContain(line);
          }
        },
      ),
    );
  });
});

describe('transcript lines for any recorded text', () => {
  let seq = 0;
  const event = (type: string, body: unknown): SessionEvent =>
    ({ seq: ++seq, type, at: '2026-12-02T00:00:00.000Z', body, turn: 1 }) as SessionEvent;

  it('carry no control sequence, and a tool result stays on one line', () => {
    fc.assert(
      fc.property(
        hostile,
        hostile,
        hostile,
        hostile,
        hostile,
        (text, reasoning, name, args, out) => {
          const events = [
            event('user/message', { content: text, source: 'user' }),
            event('user/message', { content: text, source: 'compact-checkpoint' }),
            event('assistant/message', {
              content: [
                { type: 'reasoning', text: reasoning },
                { type: 'text', text: `${text}.` },
                { type: 'tool-call', id: 'c1', name, arguments: args },
              ],
              finishReason: 'tool-calls',
            }),
            event('tool/approval', {
              toolCallId: 'c1',
              toolName: name,
              decision: 'deny',
              reason: out,
            }),
            event('tool/result', {
              toolCallId: 'c1',
              toolName: name,
              content: out,
              isError: false,
            }),
          ];
          for (const reasoningShown of [false, true]) {
            for (const recorded of events) {
              const lines = transcriptLines(recorded, { style: plain, reasoning: reasoningShown });
              for (const line of lines) expect(line).not.toMatch(ACTED_ON);
              if (recorded.type === 'tool/result') {
                expect(lines).toHaveLength(1);
                expect(lines[0]).not.toContain('\n');
              }
            }
          }
        },
      ),
    );
  });
});

describe('elicitation questions for any server text', () => {
  it('carry no control sequence', () => {
    fc.assert(
      fc.property(
        hostile,
        hostile,
        fc.dictionary(
          argName,
          fc.record({
            type: hostile,
            description: hostile,
            enum: fc.array(hostile, { maxLength: 3 }),
          }),
          { maxKeys: 3 },
        ),
        (server, message, properties) => {
          const shown = describeElicitation({
            server,
            params: { message, requestedSchema: { type: 'object', properties } },
          });
          expect(shown).not.toMatch(ACTED_ON);
        },
      ),
    );
  });
});
