import type { SessionEvent } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderSessionMarkdown, writeSessionMarkdown } from './session-markdown.js';

const AT = '2026-12-01T12:00:00.000Z';

function event(seq: number, type: string, body: unknown, turn?: number): SessionEvent {
  return { seq, type, at: AT, body, ...(turn === undefined ? {} : { turn }) } as SessionEvent;
}

function session(result: string): SessionEvent[] {
  return [
    event(1, 'session/header', { sessionId: 's1', createdAt: AT, model: 'deepseek/x', cwd: '/w' }),
    event(2, 'turn/start', {}, 1),
    event(3, 'user/message', { content: 'fix it\nplease', source: 'user' }, 1),
    event(
      4,
      'assistant/message',
      {
        content: [
          { type: 'reasoning', text: 'look first' },
          { type: 'tool-call', id: 'c1', name: 'read', arguments: '{"path":"a.ts"}' },
        ],
        finishReason: 'tool-calls',
        usage: {
          inputTokens: 10,
          cacheReadTokens: 64,
          cacheWriteTokens: 0,
          outputTokens: 5,
          costUsd: 0.001,
        },
      },
      1,
    ),
    event(
      5,
      'tool/result',
      { toolCallId: 'c1', toolName: 'read', content: result, isError: false },
      1,
    ),
  ];
}

describe('renderSessionMarkdown', () => {
  it('renders header, turns, messages, reasoning, tool calls and results, and the usage', () => {
    const text = renderSessionMarkdown(session('export const a = 1;'));
    expect(text).toContain('# Session s1');
    expect(text).toContain('- model: `deepseek/x`');
    expect(text).toContain('## Turn 1');
    expect(text).toContain('> fix it\n> please');
    expect(text).toContain('<details><summary>reasoning</summary>');
    expect(text).toContain('Tool call `read` (`c1`):\n\n```json\n{"path":"a.ts"}\n```');
    expect(text).toContain('Result of `read`:\n\n```\nexport const a = 1;\n```');
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      'Tokens: input 10, cache hit 64, output 5. Cost: $0.0010.',
    );
  });

  it('fences any result in a fence longer than every backtick run inside it', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('`', 'a', '\n', ' ', '~') }), (result) => {
        const text = renderSessionMarkdown(session(result));
        const longest = Math.max(2, ...[...result.matchAll(/`+/g)].map((run) => run[0].length));
        const fence = '`'.repeat(longest + 1);
        expect(text).toContain(`Result of \`read\`:\n\n${fence}\n${result}\n${fence}`);
      }),
    );
  });

  it('writes the same document from a stream of events, in chunks, as it renders from an array', async () => {
    const text = fc.string({ unit: fc.constantFrom('`', 'a', '\n', ' ', 'é', '\u0000', '>') });
    const usage = fc.record({
      inputTokens: fc.nat(1000),
      cacheReadTokens: fc.nat(1000),
      cacheWriteTokens: fc.nat(1000),
      outputTokens: fc.nat(1000),
      costUsd: fc.option(fc.double({ min: 0, max: 5, noNaN: true }), { nil: undefined }),
    });
    const part = fc.oneof(
      fc.record({ type: fc.constant('text'), text }),
      fc.record({ type: fc.constant('reasoning'), text }),
      fc.record({ type: fc.constant('tool-call'), id: text, name: text, arguments: text }),
    );
    const kind = fc.oneof(
      fc.record({
        type: fc.constant('session/header'),
        body: fc.record(
          { sessionId: text, createdAt: text, title: text, model: text, cwd: text },
          { requiredKeys: ['sessionId', 'createdAt'] },
        ),
      }),
      fc.record({ type: fc.constant('turn/start'), body: fc.constant({}) }),
      fc.record({
        type: fc.constant('user/message'),
        body: fc.record({ content: text, source: fc.constantFrom('user', 'recall', 'x') }),
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
      fc.record({ type: fc.constantFrom('request/header', 'turn/end'), body: fc.constant({}) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(kind, fc.option(fc.nat(9), { nil: undefined })), { maxLength: 30 }),
        fc.integer({ min: 1, max: 200 }),
        fc.boolean(),
        async (drawn, chunkChars, asynchronous) => {
          const events = drawn.map(([{ type, body }, turn], index) =>
            event(index + 1, type, body, turn),
          );
          const chunks: string[] = [];
          async function* stream(): AsyncIterable<SessionEvent> {
            yield* events;
          }
          await writeSessionMarkdown(
            asynchronous ? stream() : events,
            (chunk) => {
              chunks.push(chunk);
            },
            { chunkChars },
          );
          expect(chunks.join('')).toBe(renderSessionMarkdown(events));
          // Every chunk but the last ends a line; none is empty unless it is the only one.
          for (const chunk of chunks.slice(0, -1)) expect(chunk.endsWith('\n')).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
