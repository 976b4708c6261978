import { createHash } from 'node:crypto';
import { canonicalJson, type Message } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CHAIN_SEED,
  chainOf,
  digestRequest,
  IncrementalRequestHash,
  SHORT_CHAIN_LENGTH,
} from './canonical.js';
import type { RequestParams } from './request-params.js';

const params: RequestParams = {
  model: 'm',
  provider: 'p',
  systemHash: 'sha256:s',
  toolsHash: 'sha256:t',
  sessionId: 'session-1',
  reasoning: { enabled: true, effort: 'high' },
};

/** The scheme written out with createHash and protocol's canonicalJson, as a third party would. */
function independentDigest(messages: readonly Message[], request: RequestParams) {
  const sha = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
  let chain = sha('spine/message-chain/1');
  const values: string[] = [];
  for (const message of messages) {
    chain = sha(`${chain}\n${canonicalJson(message)}`);
    values.push(chain);
  }
  return {
    values,
    messagesHash: `sha256:${chain}`,
    requestHash: `sha256:${sha(`${chain}\n${canonicalJson(request)}`)}`,
  };
}

const textArbitrary = fc.string({ unit: 'grapheme', maxLength: 40 });
const messageArbitrary: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constant('user' as const), content: textArbitrary }),
  fc.record({
    role: fc.constant('assistant' as const),
    content: fc.array(fc.record({ type: fc.constant('text' as const), text: textArbitrary }), {
      maxLength: 3,
    }),
  }),
  fc.record({
    role: fc.constant('tool' as const),
    toolCallId: fc.string({ maxLength: 8 }),
    toolName: fc.constantFrom('read', 'bash'),
    content: textArbitrary,
    isError: fc.boolean(),
  }),
) as fc.Arbitrary<Message>;

/** One change to the message list between two requests. */
const operationArbitrary = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), added: fc.array(messageArbitrary) }),
  fc.record({
    kind: fc.constant('replace' as const),
    at: fc.nat(),
    cut: fc.nat({ max: 4 }),
    added: fc.array(messageArbitrary, { maxLength: 2 }),
  }),
  fc.record({ kind: fc.constant('edit' as const), at: fc.nat(), added: messageArbitrary }),
);

describe('message chain', () => {
  it('matches the scheme computed independently with createHash and canonicalJson', () => {
    fc.assert(
      fc.property(fc.array(messageArbitrary, { maxLength: 8 }), (messages) => {
        const expected = independentDigest(messages, params);
        expect(digestRequest(messages, params)).toEqual({
          messagesHash: expected.messagesHash,
          requestHash: expected.requestHash,
        });
        expect(chainOf(messages)).toEqual(expected.values);
      }),
      { numRuns: 300 },
    );
    expect(digestRequest([], params).messagesHash).toBe(`sha256:${CHAIN_SEED}`);
  });

  it('keeps the incremental chain equal to a from-scratch chain over random appends and replacements', () => {
    fc.assert(
      fc.property(fc.array(operationArbitrary, { maxLength: 12 }), (operations) => {
        const hasher = new IncrementalRequestHash();
        // One array grown in place (as session-log does) until a replacement, then a new one.
        let messages: Message[] = [];
        let generation = 0;
        for (const operation of operations) {
          if (operation.kind === 'append') messages.push(...operation.added);
          else if (messages.length > 0) {
            const at = operation.at % messages.length;
            const cut = operation.kind === 'edit' ? 1 : operation.cut;
            const added = operation.kind === 'edit' ? [operation.added] : operation.added;
            messages = [...messages.slice(0, at), ...added, ...messages.slice(at + cut)];
            generation++;
          }
          const kept = hasher.update(messages, generation);
          expect(kept).toBeLessThanOrEqual(messages.length);
          const fresh = digestRequest(structuredClone(messages), params);
          expect(hasher.digest(params)).toEqual(fresh);
          expect(hasher.length).toBe(messages.length);
          const chain = chainOf(messages);
          for (let i = 0; i < messages.length; i++) expect(hasher.chainValue(i)).toBe(chain[i]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('rehashes only from the first changed message and keeps the chain values before it', () => {
    const messages: Message[] = Array.from({ length: 6 }, (_, i) => ({
      role: 'user',
      content: `m${i}`,
    }));
    const hasher = new IncrementalRequestHash();
    expect(hasher.update(messages, 0)).toBe(0);
    const before = chainOf(messages);
    const replaced = [...messages.slice(0, 3), { role: 'user', content: 'summary' } as Message];
    expect(hasher.update(replaced, 1)).toBe(3);
    expect(hasher.chainValue(2)).toBe(before[2]);
    expect(hasher.chainValue(3)).not.toBe(before[3]);
    expect(() => hasher.chainValue(4)).toThrow(RangeError);
  });

  it('changes the request hash, not the messages hash, when only the parameters change', () => {
    const messages: Message[] = [{ role: 'user', content: 'hi' }];
    const hasher = new IncrementalRequestHash();
    hasher.update(messages);
    const first = hasher.digest(params);
    const second = hasher.digest({ ...params, maxOutputTokens: 10 });
    expect(second.messagesHash).toBe(first.messagesHash);
    expect(second.requestHash).not.toBe(first.requestHash);
    expect(hasher.digest(params)).toEqual(first);
    expect(first.messagesHash.slice(7, 7 + SHORT_CHAIN_LENGTH)).toBe(
      hasher.chainValue(0).slice(0, SHORT_CHAIN_LENGTH),
    );
  });

  it('restores chain values saved from a snapshot and then hashes only the messages added since', () => {
    const messages: Message[] = Array.from({ length: 8 }, (_, i) => ({
      role: 'user',
      content: `m${i}`,
    }));
    const first = new IncrementalRequestHash();
    first.update(messages.slice(0, 5), 2);
    const saved = JSON.parse(JSON.stringify(first.capture()));
    const resumed = new IncrementalRequestHash();
    // Reopened: the same messages as new objects (as a session projects them again).
    const reopened = messages.map((message) => ({ ...message }));
    expect(resumed.restore(reopened, 2, saved)).toBe(true);
    expect(resumed.update(reopened, 2)).toBe(5);
    expect(resumed.digest(params)).toEqual(digestRequest(messages, params));
    // Refused: another surface generation, a different last message, a malformed value, a used hasher.
    expect(new IncrementalRequestHash().restore(reopened, 3, saved)).toBe(false);
    const edited = reopened.slice();
    edited[4] = { role: 'user', content: 'edited' };
    expect(new IncrementalRequestHash().restore(edited, 2, saved)).toBe(false);
    expect(new IncrementalRequestHash().restore(reopened, 2, { generation: 2, chain: ['x'] })).toBe(
      false,
    );
    expect(resumed.restore(reopened, 2, saved)).toBe(false);
  });
});
