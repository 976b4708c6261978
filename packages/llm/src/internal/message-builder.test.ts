import type { ModelStreamEvent, ToolCallPart } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { MessageBuilder } from './message-builder.js';

function calls(ids: Array<string | undefined>): ToolCallPart[] {
  const builder = new MessageBuilder('call_x');
  const out: ModelStreamEvent[] = [];
  for (const id of ids) builder.startToolCall(id, 'read', out);
  return builder.build().content as ToolCallPart[];
}

describe('MessageBuilder tool call ids', () => {
  it('replaces missing, empty and repeated ids with unique ones and keeps the original', () => {
    const parts = calls([undefined, '', 'a', 'a', 'call_x_4', '']);
    expect(parts.map((part) => part.id)).toEqual([
      'call_x_0',
      'call_x_1',
      'a',
      'call_x_3',
      'call_x_4',
      'call_x_5',
    ]);
    expect(parts.map((part) => part.providerId)).toEqual(['', '', undefined, 'a', undefined, '']);
  });

  it('never assigns an id a provider already used in the same answer', () => {
    const parts = calls(['call_x_1', '']);
    expect(parts.map((part) => part.id)).toEqual(['call_x_1', 'call_x_1_2']);
  });
});
