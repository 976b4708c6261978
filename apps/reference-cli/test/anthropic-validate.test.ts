import { describe, expect, it } from 'vitest';
import { invalidMessagesRequest } from './anthropic-validate.js';

const TOOLS = [{ name: 'read', description: 'Read a file.', input_schema: { type: 'object' } }];
const USE = { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } };
const RESULT = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'text of a' };

function body(messages: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'claude-sonnet-4-5', max_tokens: 4096, tools: TOOLS, messages, ...extra };
}

// The scripted server refuses what the real API refuses; these cases keep that check honest.
describe('the scripted server’s Messages API request rules', () => {
  it('accepts a well-formed tool loop, with thinking opening the tool turn', () => {
    const thinking = { type: 'thinking', thinking: 'hm', signature: 'sig' };
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [thinking, USE] },
      { role: 'user', content: [RESULT, { type: 'text', text: 'and then?' }] },
    ];
    expect(invalidMessagesRequest(body(messages))).toBeUndefined();
    expect(
      invalidMessagesRequest(
        body(messages, { thinking: { type: 'enabled', budget_tokens: 2048 } }),
      ),
    ).toBeUndefined();
  });

  it('refuses a tool_use without its tool_result first in the next message', () => {
    const messages = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [USE] },
      { role: 'user', content: [{ type: 'text', text: 'ignored the tool' }, RESULT] },
    ];
    expect(invalidMessagesRequest(body(messages))).toContain(
      'tool_use ids were found without tool_result blocks immediately after: toolu_1',
    );
  });

  it('refuses tool ids outside [a-zA-Z0-9_-], unalternating roles, empty text and no tools', () => {
    const badId = { ...USE, id: 'functions.read:0' };
    const result = { ...RESULT, tool_use_id: 'functions.read:0' };
    expect(
      invalidMessagesRequest(
        body([
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [badId] },
          { role: 'user', content: [result] },
        ]),
      ),
    ).toContain('tool_use.id: String should match pattern');
    expect(
      invalidMessagesRequest(
        body([
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ]),
      ),
    ).toContain('roles must alternate');
    expect(invalidMessagesRequest(body([{ role: 'user', content: '' }]))).toContain('non-empty');
    expect(
      invalidMessagesRequest(
        body(
          [
            { role: 'user', content: 'go' },
            { role: 'assistant', content: [USE] },
            { role: 'user', content: [RESULT] },
          ],
          { tools: [] },
        ),
      ),
    ).toContain('must define tools');
  });

  it('refuses an unsigned tool turn, a bad thinking budget and more than four cache breakpoints', () => {
    const thinking = { thinking: { type: 'enabled', budget_tokens: 2048 } };
    const messages = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [USE] },
      { role: 'user', content: [RESULT] },
    ];
    expect(invalidMessagesRequest(body(messages, thinking))).toContain(
      'must start with a thinking block',
    );
    const plain = [{ role: 'user', content: 'go' }];
    expect(
      invalidMessagesRequest(body(plain, { thinking: { type: 'enabled', budget_tokens: 8192 } })),
    ).toContain('greater than `thinking.budget_tokens`');
    const marked = { type: 'text', text: 'x', cache_control: { type: 'ephemeral' } };
    expect(
      invalidMessagesRequest(
        body([{ role: 'user', content: [marked, marked, marked, marked, marked] }]),
      ),
    ).toBe('A maximum of 4 blocks with cache_control may be provided. Found 5.');
  });
});
