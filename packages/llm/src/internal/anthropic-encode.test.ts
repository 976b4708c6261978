import type { Message, ModelRequest } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { AnthropicRequestEncoder } from './anthropic-encode.js';

function step(i: number): Message[] {
  return [
    { role: 'user', content: `question ${i} é 日本 🚀` },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `looking ${i}` },
        { type: 'tool-call', id: `c${i}`, name: 'read', arguments: `{"path":"f${i}"}` },
      ],
    },
    { role: 'tool', toolCallId: `c${i}`, toolName: 'read', content: 'x'.repeat(200 + i) },
    { role: 'assistant', content: [{ type: 'text', text: `done ${i}` }] },
  ];
}

const text = (chunks: Buffer[]): string => Buffer.concat(chunks).toString('utf8');

describe('AnthropicRequestEncoder.encodeChunks', () => {
  for (const cache of [true, false]) {
    it(`sends the bytes of encode() as history grows, message by message (cache ${cache})`, () => {
      const encoder = new AnthropicRequestEncoder({ cache, defaultMaxTokens: () => 1024 });
      const request = (messages: Message[]): ModelRequest => ({
        model: 'claude-sonnet-4-5',
        system: 'Be terse.',
        messages,
        tools: [{ name: 'read', description: 'Read a file', parameters: { type: 'object' } }],
      });
      let history: Message[] = [];
      let held: { chunks: Buffer[]; text: string } | undefined;
      for (let i = 0; i < 200; i++) {
        for (const message of step(i)) {
          history = [...history, message];
          const chunks = encoder.encodeChunks(request(history));
          expect(text(chunks)).toBe(encoder.encode(request(history)));
          if (i === 3 && held === undefined) held = { chunks, text: text(chunks) };
        }
      }
      // Nearly the whole history comes from the cached bytes.
      const [, cached] = encoder.encodeChunks(request(history));
      expect(cached?.length).toBeGreaterThan(
        0.95 * Buffer.byteLength(encoder.encode(request(history))),
      );
      const replaced = [{ role: 'user', content: 'summary' } as Message, ...history.slice(400)];
      expect(text(encoder.encodeChunks(request(replaced)))).toBe(encoder.encode(request(replaced)));
      // Bytes handed out earlier were not overwritten by the appends and buffer growth since.
      expect(text(held?.chunks ?? [])).toBe(held?.text);
    });
  }
});
