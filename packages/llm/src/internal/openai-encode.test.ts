import type { Message, ModelRequest } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { OpenAIRequestEncoder } from './openai-encode.js';

const deepseekDialect = {
  reasoningHistory: 'tool-calls',
  maxTokensField: 'max_tokens',
  reasoningStyle: 'deepseek',
  includeUsage: true,
} as const;

function base(messages: Message[]): ModelRequest {
  return { model: 'deepseek-v4-flash', system: 'sys', messages, tools: [] };
}

const withTools: Message = {
  role: 'assistant',
  content: [
    { type: 'reasoning', text: 'why' },
    { type: 'text', text: 'Calling.' },
    { type: 'tool-call', id: 'c1', name: 'ls', arguments: '{}' },
  ],
};
const plainAnswer: Message = {
  role: 'assistant',
  content: [
    { type: 'reasoning', text: 'thought' },
    { type: 'text', text: 'Done.' },
  ],
};

describe('OpenAIRequestEncoder', () => {
  it("applies DeepSeek's safe reasoning policy: resend only with tool calls, never with thinking off", () => {
    const encoder = new OpenAIRequestEncoder(deepseekDialect);
    const messages: Message[] = [
      { role: 'user', content: 'hi' },
      withTools,
      { role: 'tool', toolCallId: 'c1', toolName: 'ls', content: 'a' },
      plainAnswer,
    ];
    const on = JSON.parse(encoder.encode(base(messages)));
    expect(on.messages[2]).toEqual({
      role: 'assistant',
      content: 'Calling.',
      reasoning_content: 'why',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
    });
    expect(on.messages[4]).toEqual({ role: 'assistant', content: 'Done.' });
    const off = JSON.parse(encoder.encode({ ...base(messages), reasoning: { enabled: false } }));
    expect(off.messages[2].reasoning_content).toBeUndefined();
    expect(off.thinking).toEqual({ type: 'disabled' });
  });

  it('is deterministic and byte-identical whether fragments come from the cache or not', () => {
    const messages: Message[] = [{ role: 'user', content: 'a' }, withTools];
    const request = {
      ...base(messages),
      maxOutputTokens: 100,
      toolChoice: 'auto' as const,
      providerOptions: { user_id: 'u1' },
    };
    const first = new OpenAIRequestEncoder(deepseekDialect).encode(request);
    const shared = new OpenAIRequestEncoder(deepseekDialect);
    shared.encode(base([messages[0]!]));
    expect(shared.encode(request)).toBe(first);
    expect(shared.encode(request)).toBe(first);
    expect(Object.keys(JSON.parse(first))).toEqual([
      'model',
      'messages',
      'max_tokens',
      'stream',
      'stream_options',
      'user_id',
    ]);
  });

  it('serialises each message once: old messages are not read again when one is appended', () => {
    let reads = 0;
    const counted = (text: string): Message =>
      Object.defineProperty({ role: 'user' } as Message, 'content', {
        enumerable: true,
        get: () => {
          reads++;
          return text;
        },
      });
    const history = Array.from({ length: 1000 }, (_, i) => counted(`message ${i}`));
    const encoder = new OpenAIRequestEncoder(deepseekDialect);
    encoder.encode(base(history));
    const afterFirst = reads;
    expect(afterFirst).toBe(1000);
    const longer = [...history, counted('new')];
    const text = encoder.encode(base(longer));
    expect(reads - afterFirst).toBe(1);
    expect(JSON.parse(text).messages).toHaveLength(1002);
  });

  it('maps tool choice, effort and the max tokens field per dialect', () => {
    const openai = new OpenAIRequestEncoder({
      ...deepseekDialect,
      reasoningHistory: 'never',
      maxTokensField: 'max_completion_tokens',
      reasoningStyle: 'effort',
    });
    const body = JSON.parse(
      openai.encode({
        ...base([{ role: 'user', content: 'x' }]),
        system: '',
        tools: [{ name: 'ls', description: 'd', parameters: { type: 'object' } }],
        toolChoice: { name: 'ls' },
        maxOutputTokens: 50,
        reasoning: { enabled: true, effort: 'low' },
      }),
    );
    expect(body.messages).toEqual([{ role: 'user', content: 'x' }]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'ls' } });
    expect(body.max_completion_tokens).toBe(50);
    expect(body.reasoning_effort).toBe('low');
    expect(body.thinking).toBeUndefined();
  });

  it('encodes bytes equal to the text, and never rewrites bytes it handed out', () => {
    const encoder = new OpenAIRequestEncoder(deepseekDialect);
    const wide = (i: number): Message => ({
      role: 'user',
      content: `é 日本 🚀 ${i} ${'x'.repeat(i)}`,
    });
    const history = Array.from({ length: 50 }, (_, i) => wide(i));
    const text = (chunks: Buffer[]): string => Buffer.concat(chunks).toString('utf8');
    const first = encoder.encodeChunks(base(history));
    const firstText = text(first);
    expect(firstText).toBe(encoder.encode(base(history)));
    // Grow far past the buffer's capacity, one message at a time, then replace the history.
    let current = history;
    for (let i = 0; i < 300; i++) {
      current = [...current, wide(1000 + i)];
      expect(text(encoder.encodeChunks(base(current)))).toBe(encoder.encode(base(current)));
    }
    const replaced = [wide(7), ...current.slice(10)];
    expect(text(encoder.encodeChunks(base(replaced)))).toBe(encoder.encode(base(replaced)));
    expect(text(encoder.encodeChunks(base([])))).toBe(encoder.encode(base([])));
    expect(text(first)).toBe(firstText);
  });

  it('reuses the bytes around the history only while every field they depend on is unchanged', () => {
    const encoder = new OpenAIRequestEncoder(deepseekDialect);
    const text = (chunks: Buffer[]): string => Buffer.concat(chunks).toString('utf8');
    const tool = { name: 'ls', description: 'list', parameters: { type: 'object' } };
    const history: Message[] = [{ role: 'user', content: 'hi' }];
    const variants: ModelRequest[] = [
      base(history),
      base(history),
      base([]),
      { ...base(history), system: '' },
      { ...base(history), model: 'other' },
      { ...base(history), tools: [tool] },
      { ...base(history), tools: [tool], toolChoice: 'required' },
      { ...base(history), maxOutputTokens: 10 },
      { ...base(history), temperature: 0.5 },
      { ...base(history), reasoning: { enabled: true, effort: 'high' } },
      { ...base(history), reasoning: { enabled: true, effort: 'max' } },
      { ...base(history), reasoning: { enabled: false } },
      { ...base(history), providerOptions: { top_p: 0.9 } },
      base(history),
    ];
    for (const request of variants) {
      expect(text(encoder.encodeChunks(request))).toBe(encoder.encode(request));
      expect(text(encoder.encodeChunks(request, false))).toBe(encoder.encode(request, false));
    }
  });

  it('lends the body as one buffer framed around the cached history, equal to the text', () => {
    const encoder = new OpenAIRequestEncoder(deepseekDialect);
    const wide = (i: number): Message => ({ role: 'user', content: `é 🚀 ${i} ${'x'.repeat(i)}` });
    let history: Message[] = [];
    for (let i = 0; i < 400; i++) {
      history = [...history, wide(i * 7)];
      const lease = encoder.encodeBody(base(history));
      expect(lease.bytes.toString('utf8')).toBe(encoder.encode(base(history)));
      lease.release();
    }
    const replaced = [wide(3), ...history.slice(5)];
    const lease = encoder.encodeBody({ ...base(replaced), maxOutputTokens: 9 });
    expect(lease.bytes.toString('utf8')).toBe(
      encoder.encode({ ...base(replaced), maxOutputTokens: 9 }),
    );
    lease.release();
    const empty = encoder.encodeBody(base([]));
    expect(empty.bytes.toString('utf8')).toBe(encoder.encode(base([])));
    empty.release();
  });

  it('never changes a lent body while its lease is out, even as later requests grow the history', () => {
    const encoder = new OpenAIRequestEncoder(deepseekDialect);
    const user = (i: number): Message => ({ role: 'user', content: `m${i}` });
    const history = [user(0), user(1)];
    const first = encoder.encodeBody(base(history));
    const firstText = first.bytes.toString('utf8');
    // A concurrent request on the same encoder: the first lease is still out.
    const grown = [...history, user(2)];
    const second = encoder.encodeBody(base(grown));
    expect(second.bytes.toString('utf8')).toBe(encoder.encode(base(grown)));
    const chunks = encoder.encodeChunks(base([...grown, user(3)]));
    expect(Buffer.concat(chunks).toString('utf8')).toBe(encoder.encode(base([...grown, user(3)])));
    expect(first.bytes.toString('utf8')).toBe(firstText);
    first.release();
    first.release();
    second.release();
    const third = encoder.encodeBody(base([...grown, user(3), user(4)]));
    expect(third.bytes.toString('utf8')).toBe(encoder.encode(base([...grown, user(3), user(4)])));
    expect(first.bytes.toString('utf8')).toBe(firstText);
    // A stale release of an old lease does not end the current one.
    first.release();
    const fourth = encoder.encodeBody(base([...grown, user(3), user(4), user(5)]));
    expect(fourth.bytes.toString('utf8')).toBe(
      encoder.encode(base([...grown, user(3), user(4), user(5)])),
    );
    expect(third.bytes.toString('utf8')).toBe(encoder.encode(base([...grown, user(3), user(4)])));
    third.release();
    fourth.release();
  });
});
