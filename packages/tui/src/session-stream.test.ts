import type { SessionEvent } from '@spine/protocol';
import { visibleJson, visibleText } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createChunkWriter, writeJsonArray } from './output.js';
import { writeEventLines, writeEventsNdjson, writeTranscript } from './session-stream.js';
import { styleFor } from './style.js';
import { renderTranscript } from './transcript.js';

// Hostile and ordinary characters: escapes, C1, bidi, CR LF, tabs, backticks, Unicode.
const text = fc.string({
  unit: fc.constantFrom(
    'a',
    ' ',
    '\n',
    '\r',
    '\t',
    '`',
    '"',
    '\\',
    'é',
    '€',
    '\u001b',
    '\u009b',
    '\u202e',
    '\u2028',
    '😀',
  ),
  maxLength: 40,
});
const usage = fc.record(
  {
    inputTokens: fc.nat(1000),
    cacheReadTokens: fc.nat(1000),
    cacheWriteTokens: fc.nat(1000),
    outputTokens: fc.nat(1000),
    costUsd: fc.double({ min: 0, max: 5, noNaN: true }),
  },
  { requiredKeys: ['inputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'outputTokens'] },
);
const part = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('reasoning'), text }),
  fc.record({ type: fc.constant('tool-call'), id: text, name: text, arguments: text }),
);
const drawnEvent = fc.oneof(
  fc.record({
    type: fc.constant('session/header'),
    body: fc.record(
      {
        sessionId: text,
        createdAt: text,
        model: text,
        cwd: text,
        parent: fc.record({ sessionId: text, atSeq: fc.nat() }),
      },
      { requiredKeys: ['sessionId', 'createdAt'] },
    ),
  }),
  fc.record({
    type: fc.constantFrom('turn/start', 'compaction/end', 'agent/aborted'),
    body: fc.constant({}),
  }),
  fc.record({
    type: fc.constant('user/message'),
    body: fc.record({
      content: text,
      source: fc.oneof(fc.constantFrom('user', 'compact-checkpoint', 'recall'), text),
    }),
  }),
  fc.record({
    type: fc.constant('assistant/message'),
    body: fc.record(
      { content: fc.array(part, { maxLength: 4 }), finishReason: fc.constant('stop'), usage },
      { requiredKeys: ['content', 'finishReason'] },
    ),
  }),
  fc.record({
    type: fc.constant('tool/result'),
    body: fc.record({ toolCallId: text, toolName: text, content: text, isError: fc.boolean() }),
  }),
  fc.record({
    type: fc.constant('tool/approval'),
    body: fc.record({ toolName: text, decision: fc.constantFrom('deny', 'allow'), reason: text }),
  }),
  fc.record({
    type: fc.constantFrom('turn/end', 'session/recovered'),
    body: fc.record({ reason: text }),
  }),
  fc.record({ type: text, body: fc.jsonValue() }),
);
const AT = '2026-12-01T12:00:00.000Z';
const session = fc
  .array(
    fc.tuple(
      drawnEvent,
      fc.option(fc.nat(9), { nil: undefined }),
      fc.option(fc.nat(9), { nil: undefined }),
    ),
    { maxLength: 25 },
  )
  .map((drawn) =>
    drawn.map(
      ([{ type, body }, turn, step], index) =>
        ({
          seq: index + 1,
          type,
          at: AT,
          body,
          ...(turn === undefined ? {} : { turn }),
          ...(step === undefined ? {} : { step }),
        }) as SessionEvent,
    ),
  );

async function* stream(events: readonly SessionEvent[]): AsyncIterable<SessionEvent> {
  yield* events;
}

/** Runs `write` against a chunk writer of `chunkChars` and returns the text and its chunks. */
async function written(
  chunkChars: number,
  write: (writer: ReturnType<typeof createChunkWriter>) => Promise<unknown>,
): Promise<{ text: string; chunks: string[] }> {
  const chunks: string[] = [];
  const writer = createChunkWriter((chunk) => {
    chunks.push(chunk);
  }, chunkChars);
  await write(writer);
  await writer.end();
  return { text: chunks.join(''), chunks };
}

describe('streamed show and export output', () => {
  it('equals the whole-load output for any session, chunk size and style', async () => {
    await fc.assert(
      fc.asyncProperty(
        session,
        fc.integer({ min: 1, max: 300 }),
        fc.boolean(),
        fc.boolean(),
        async (events, chunkChars, colour, reasoning) => {
          const style = styleFor({ isTTY: colour }, {});
          const options = { style, reasoning };
          const transcript = await written(chunkChars, (writer) =>
            writeTranscript(stream(events), writer, options),
          );
          expect(transcript.text).toBe(renderTranscript(events, options));
          for (const chunk of transcript.chunks.slice(0, -1))
            expect(chunk.length).toBeGreaterThanOrEqual(chunkChars);

          const json = await written(chunkChars, async (writer) => {
            await writeJsonArray(stream(events), writer, { map: visibleJson });
            await writer.write('\n');
          });
          expect(json.text).toBe(`${visibleJson(JSON.stringify(events, null, 2))}\n`);

          const exported = await written(chunkChars, async (writer) => {
            await writer.write(`{\n  "sessionId": ${JSON.stringify('s1')},\n  "events": `);
            await writeJsonArray(stream(events), writer, { indent: 2 });
            await writer.write('\n}\n');
          });
          expect(exported.text).toBe(`${JSON.stringify({ sessionId: 's1', events }, null, 2)}\n`);

          const ndjson = await written(chunkChars, (writer) =>
            writeEventsNdjson(stream(events), writer),
          );
          expect(ndjson.text).toBe(
            events.map((event) => `${visibleJson(JSON.stringify(event))}\n`).join(''),
          );

          const lines = await written(chunkChars, (writer) =>
            writeEventLines(stream(events), writer),
          );
          expect(lines.text).toBe(
            events
              .map((event) => {
                const where =
                  event.turn === undefined
                    ? ''
                    : ` t${event.turn}${event.step === undefined ? '' : `.${event.step}`}`;
                return `${String(event.seq).padStart(6)} ${visibleText(event.type)}${where} ${visibleJson(JSON.stringify(event.body))}\n`;
              })
              .join(''),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reports whether the session started subagents', async () => {
    const child = { seq: 2, type: 'agent/child/start', at: AT, body: {} } as SessionEvent;
    const body = { sessionId: 's1', createdAt: AT };
    const header = { seq: 1, type: 'session/header', at: AT, body } as SessionEvent;
    const none = await writeTranscript(
      stream([header]),
      createChunkWriter(() => {}),
    );
    const some = await writeTranscript(
      stream([header, child]),
      createChunkWriter(() => {}),
    );
    expect([none.hasChildren, some.hasChildren]).toEqual([false, true]);
  });
});
