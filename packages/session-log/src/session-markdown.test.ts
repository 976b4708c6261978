import type { SessionEvent } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderSessionMarkdown } from './session-markdown.js';

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
});
