import { describe, expect, it } from 'vitest';
import {
  BUILTIN_EVENT_TYPES,
  SessionEventSchema,
  ToolResultBodySchema,
  UserMessageBodySchema,
} from './events.js';
import { MessageSchema, textOf, toolCallsOf } from './messages.js';
import { addUsage, promptTokensOf } from './usage.js';

describe('event schemas', () => {
  it('accepts a well-formed event and rejects a zero seq', () => {
    const event = {
      seq: 1,
      type: 'user/message',
      at: '2026-11-30T00:00:00.000Z',
      body: { content: 'hi', source: 'user' },
      surfaceOp: { op: 'append' },
    };
    expect(SessionEventSchema.safeParse(event).success).toBe(true);
    expect(SessionEventSchema.safeParse({ ...event, seq: 0 }).success).toBe(false);
    expect(
      SessionEventSchema.safeParse({ ...event, surfaceOp: { op: 'replace', start: 1 } }).success,
    ).toBe(false);
  });

  it('marks exactly the message-bearing types as surface types', () => {
    const surface = Object.entries(BUILTIN_EVENT_TYPES)
      .filter(([, d]) => d.surface === 'surface')
      .map(([t]) => t);
    expect(surface.sort()).toEqual(['assistant/message', 'tool/result', 'user/message']);
  });

  it('validates message bodies', () => {
    expect(UserMessageBodySchema.safeParse({ content: 'x' }).success).toBe(false);
    expect(
      ToolResultBodySchema.safeParse({
        toolCallId: 'c',
        toolName: 'read',
        content: 'ok',
        isError: false,
        meta: { truncated: false, custom: 1 },
      }).success,
    ).toBe(true);
  });
});

describe('messages and usage', () => {
  it('extracts tool calls and text in order', () => {
    const message = MessageSchema.parse({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'think' },
        { type: 'text', text: 'a' },
        { type: 'tool-call', id: '1', name: 'read', arguments: '{' },
        { type: 'text', text: 'b' },
      ],
    });
    if (message.role !== 'assistant') throw new Error('expected assistant');
    expect(textOf(message)).toBe('ab');
    expect(toolCallsOf(message).map((c) => c.arguments)).toEqual(['{']);
  });

  it('adds usage bucket by bucket and counts prompt tokens once', () => {
    const a = {
      inputTokens: 10,
      cacheReadTokens: 90,
      cacheWriteTokens: 0,
      outputTokens: 5,
      reasoningTokens: 2,
    };
    const b = { inputTokens: 1, cacheReadTokens: 9, cacheWriteTokens: 3, outputTokens: 1 };
    expect(addUsage(a, b)).toEqual({
      inputTokens: 11,
      cacheReadTokens: 99,
      cacheWriteTokens: 3,
      outputTokens: 6,
      reasoningTokens: 2,
    });
    expect(promptTokensOf(b)).toBe(13);
  });
});
