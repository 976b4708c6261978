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

describe('AnthropicRequestEncoder: a large last turn', () => {
  it('keeps the bytes of a marked turn for the next request instead of encoding them again', () => {
    const encoder = new AnthropicRequestEncoder({ cache: true, defaultMaxTokens: () => 1024 });
    const big = 'p'.repeat(2_000_000);
    const request = (messages: Message[]): ModelRequest => ({
      model: 'claude-sonnet-4-5',
      system: '',
      messages,
      tools: [],
    });
    const first: Message[] = [{ role: 'user', content: big }];
    const a = encoder.encodeChunks(request(first));
    const b = encoder.encodeChunks(request(first));
    const held = a.find((chunk) => chunk.length > big.length);
    expect(held).toBeDefined();
    expect(b).toContain(held);
    // Once it is the previous user turn (still marked), the same bytes are sent.
    const grown: Message[] = [
      ...first,
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
      { role: 'user', content: 'next' },
    ];
    const c = encoder.encodeChunks(request(grown));
    expect(c).toContain(held);
    expect(text(c)).toBe(encoder.encode(request(grown)));
    expect(text(b)).toBe(encoder.encode(request(first)));
  });
});

describe('AnthropicRequestEncoder: history from other providers, thinking budgets', () => {
  const encoder = () =>
    new AnthropicRequestEncoder({ cache: false, defaultMaxTokens: () => 32000 });
  const body = (request: Partial<ModelRequest>): Record<string, unknown> =>
    JSON.parse(
      encoder().encode({
        model: 'claude-sonnet-4-5',
        system: '',
        messages: [],
        tools: [],
        ...request,
      }),
    ) as Record<string, unknown>;
  const toolTurn = (id: string, thinking: boolean): Message[] => [
    { role: 'user', content: 'read it' },
    {
      role: 'assistant',
      content: [
        ...(thinking
          ? [{ type: 'reasoning' as const, text: 'hmm', signature: 'sig+/=' }]
          : [{ type: 'text' as const, text: 'reading' }]),
        { type: 'tool-call', id, name: 'read', arguments: '{"path":"a"}' },
      ],
    },
    { role: 'tool', toolCallId: id, toolName: 'read', content: 'A' },
  ];
  type Block = { type: string; id?: string; tool_use_id?: string };
  const blocks = (sent: Record<string, unknown>): Block[] =>
    (sent.messages as { content: Block[] }[]).flatMap((turn) => turn.content);

  it('rewrites tool ids Anthropic refuses, the same way in tool_use and tool_result', () => {
    for (const id of ['functions.read:0', '', 'call 1/2', 'ok_id-1']) {
      const sent = blocks(body({ messages: toolTurn(id, false) }));
      const use = sent.find((block) => block.type === 'tool_use');
      const result = sent.find((block) => block.type === 'tool_result');
      expect(use?.id).toMatch(/^[a-zA-Z0-9_-]+$/);
      expect(result?.tool_use_id).toBe(use?.id);
      if (id === 'ok_id-1') expect(use?.id).toBe(id);
    }
    const a = blocks(body({ messages: toolTurn('f.read:0', false) })).find((b) => b.id);
    const b = blocks(body({ messages: toolTurn('f.read_0', false) })).find((b) => b.id);
    expect(a?.id).not.toBe(b?.id);
  });

  it('scales the thinking budget with the effort, and an explicit budget wins', () => {
    const budget = (reasoning: ModelRequest['reasoning']): number =>
      (
        body({ messages: [{ role: 'user', content: 'hi' }], reasoning }).thinking as {
          budget_tokens: number;
        }
      ).budget_tokens;
    const budgets = (['low', 'medium', 'high', 'max'] as const).map((effort) =>
      budget({ enabled: true, effort }),
    );
    expect(budgets).toEqual([4000, 8000, 16000, 24000]);
    expect(budget({ enabled: true })).toBe(16000);
    expect(budget({ enabled: true, effort: 'low', budgetTokens: 2048 })).toBe(2048);
  });

  it('sends no thinking while a tool turn that opened without a thinking block continues', () => {
    const reasoning = { enabled: true } as const;
    expect(body({ messages: toolTurn('c1', false), reasoning, temperature: 0.2 })).toMatchObject({
      temperature: 0.2,
    });
    expect(body({ messages: toolTurn('c1', false), reasoning }).thinking).toBeUndefined();
    expect(body({ messages: toolTurn('c1', true), reasoning }).thinking).toBeDefined();
    // New user text after the tool result joins the same user turn: the loop still continues.
    const queued: Message[] = [...toolTurn('c1', false), { role: 'user', content: 'and then?' }];
    expect(body({ messages: queued, reasoning }).thinking).toBeUndefined();
    const next: Message[] = [
      ...toolTurn('c1', false),
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
      { role: 'user', content: 'again' },
    ];
    expect(body({ messages: next, reasoning }).thinking).toBeDefined();
  });
});
