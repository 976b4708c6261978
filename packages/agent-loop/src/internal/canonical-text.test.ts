import { canonicalJson } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalText } from './canonical-text.js';

describe('canonicalText', () => {
  it('is byte for byte canonicalJson on arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalText(value)).toBe(canonicalJson(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('is byte for byte canonicalJson on values with undefined members and odd keys', () => {
    const member = fc.oneof(fc.jsonValue(), fc.constant(undefined));
    const keys = fc.oneof(
      fc.string(),
      fc.constantFrom('__proto__x', 'é', '\u2028', 'a"b', '10', '9'),
    );
    fc.assert(
      fc.property(fc.dictionary(keys, member), fc.array(member), (object, array) => {
        expect(canonicalText(object)).toBe(canonicalJson(object));
        expect(canonicalText(array)).toBe(canonicalJson(array));
      }),
      { numRuns: 1000 },
    );
  });

  it('serialises messages as canonicalJson does', () => {
    const messages = [
      { role: 'user', content: 'hi "there"\n', source: 'user' },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'think', signature: 'sig' },
          { type: 'text', text: 'ok' },
          { type: 'tool-call', id: 'c1', name: 'read', arguments: '{"path":"a"}' },
        ],
      },
      { role: 'tool', toolCallId: 'c1', toolName: 'read', content: 'data', isError: false },
    ];
    for (const message of messages) expect(canonicalText(message)).toBe(canonicalJson(message));
  });
});
