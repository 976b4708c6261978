// Spine's own ModelClients run the published kit (one test per case), and a deliberately broken
// client shows that the kit fails with messages that say what went wrong.

import { checkModelClient, modelClientConformanceCases } from '@spine/llm/testing';
import type { ModelClient, ModelStreamEvent } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import {
  createAnthropicModel,
  createDeepSeekModel,
  createOpenAICompatibleModel,
} from '../src/index.js';

const clients: [string, (baseUrl: string) => ModelClient][] = [
  ['deepseek', (baseUrl) => createDeepSeekModel({ baseUrl, apiKey: 'k', idleTimeoutMs: 2000 })],
  [
    'openai-compatible',
    (baseUrl) => createOpenAICompatibleModel({ baseUrl, apiKey: 'k', idleTimeoutMs: 2000 }),
  ],
  ['anthropic', (baseUrl) => createAnthropicModel({ baseUrl, apiKey: 'k', idleTimeoutMs: 2000 })],
];

describe.each(clients)('@spine/llm/testing kit: %s', (_name, client) => {
  for (const c of modelClientConformanceCases) it(c.name, () => c.run({ client }));
});

/**
 * A broken client: it wraps a real one but swallows errors (ending with a plain finish), drops
 * every reasoning delta and reports tool-call arguments only at finish.
 */
function brokenClient(baseUrl: string): ModelClient {
  const inner = createDeepSeekModel({ baseUrl, apiKey: 'k', idleTimeoutMs: 2000 });
  return {
    specificationVersion: 1,
    provider: 'broken',
    async *stream(request, options) {
      try {
        for await (const event of inner.stream(request, options)) {
          if (event.type === 'reasoning-delta' || event.type === 'tool-call-delta') continue;
          yield event;
        }
      } catch {
        const finish: ModelStreamEvent = {
          type: 'finish',
          message: { role: 'assistant', content: [] },
          finishReason: 'stop',
        };
        yield finish;
      }
    },
  };
}

describe('@spine/llm/testing kit: a broken client', () => {
  it('fails the cases it breaks, each with a message saying what was expected', async () => {
    const report = await checkModelClient({ client: brokenClient });
    expect(report.ok).toBe(false);
    const byName = Object.fromEntries(report.failed.map((f) => [f.name, f.message]));
    expect(report.passed + report.failed.length).toBe(modelClientConformanceCases.length);
    expect(
      byName['streams text as deltas, then exactly one finish whose message holds the same text'],
    ).toBeUndefined();
    expect(byName['streams reasoning as reasoning-delta events apart from the answer text']).toBe(
      'reasoning reply: expected reasoning deltas to join to "First think it through.", got ""',
    );
    expect(byName['assembles tool calls whose arguments arrive split across many deltas']).toMatch(
      /^tool calls: deltas of call 0 join to "", expected /,
    );
    expect(byName['classifies HTTP 429 with Retry-After as RATE_LIMITED (retryable true)']).toBe(
      'HTTP 429 with Retry-After: expected the stream to throw a ModelError, but it finished (1 events)',
    );
    expect(byName['reports a connection dropped mid-stream as a retryable STREAM_BROKEN']).toMatch(
      /^dropped stream: expected the stream to throw a ModelError, but it finished/,
    );
  });
});
