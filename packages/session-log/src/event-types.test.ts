import {
  AssistantMessageBodySchema,
  AttemptBodySchema,
  PromptSystemBodySchema,
  RequestContextBodySchema,
  RequestHeaderBodySchema,
  SpineError,
  StepEndBodySchema,
  StepStartBodySchema,
  ToolApprovalBodySchema,
  ToolResultBodySchema,
  ToolStartedBodySchema,
  ToolsDefinedBodySchema,
  TurnEndBodySchema,
  TurnStartBodySchema,
  UserMessageBodySchema,
} from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Session } from './session.js';
import { createMemoryStore } from './store-memory.js';

// The hand-written checks of hot built-in bodies must accept exactly what the zod schemas
// accept: these properties append arbitrary near-valid bodies and compare with safeParse.

const anyValue = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -3, max: 3 }),
  fc.constant(1.5),
  fc.boolean(),
  fc.constant(null),
  fc.constant(2 ** 60),
);
const count = fc.oneof(fc.nat({ max: 1000 }), anyValue);
const part = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.oneof(fc.string(), anyValue) }),
  fc.record(
    {
      type: fc.constant('reasoning'),
      text: fc.string(),
      signature: fc.oneof(fc.string(), anyValue),
      redactedData: fc.string(),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.oneof(fc.constant('tool-call'), fc.constant('image')),
      id: fc.string(),
      name: fc.oneof(fc.string(), anyValue),
      arguments: fc.string(),
    },
    { requiredKeys: ['type', 'id'] },
  ),
  anyValue,
);
const usage = fc.record(
  {
    inputTokens: count,
    cacheReadTokens: count,
    cacheWriteTokens: count,
    outputTokens: count,
    reasoningTokens: count,
    costUsd: fc.oneof(fc.constant(0.25), fc.constant(-1), anyValue),
  },
  { requiredKeys: ['inputTokens', 'cacheReadTokens', 'cacheWriteTokens'] },
);
const assistantBody = fc.record(
  {
    content: fc.oneof(fc.array(part, { maxLength: 3 }), anyValue),
    finishReason: fc.oneof(fc.constant('stop'), anyValue),
    rawFinishReason: fc.oneof(fc.string(), anyValue),
    usage: fc.oneof(usage, anyValue),
    model: fc.string(),
    provider: fc.oneof(fc.string(), anyValue),
    attempt: fc.oneof(fc.integer({ min: -1, max: 4 }), anyValue),
    extra: fc.string(),
  },
  { requiredKeys: [] },
);

async function agrees(
  type: string,
  schema: { safeParse(value: unknown): { success: boolean } },
  body: unknown,
): Promise<void> {
  const session = await Session.create({ store: createMemoryStore(), id: 'check' });
  let code: string | undefined;
  try {
    // Only an assistant message goes on the surface (a tool result there would need its call);
    // the check under test runs before any surface rule.
    session.append(type, body, type === 'assistant/message' ? { surfaceOp: { op: 'append' } } : {});
  } catch (error) {
    code = SpineError.isInstance(error) ? error.code : String(error);
  }
  const valid = schema.safeParse(body).success;
  expect(code === undefined ? 'accepted' : code).toBe(valid ? 'accepted' : 'INVALID_EVENT');
}

// Valid bodies with one field (possibly nested) set to a tricky value or removed: the boundary
// where a hand-written check and its schema could disagree.
const tricky = fc.constantFrom<unknown>(
  undefined,
  0,
  -1,
  1.5,
  2 ** 60,
  '',
  'chain/2',
  'ok',
  null,
  true,
  [],
  {},
  [1],
  [1, 2, 3],
  ['x'],
  { enabled: true },
  'x'.repeat(65),
);
const paths = (body: object): string[][] => {
  const out: string[][] = [];
  const walk = (value: unknown, path: string[]): void => {
    if (path.length > 0) out.push(path);
    if (value !== null && typeof value === 'object')
      for (const [key, inner] of Object.entries(value)) walk(inner, [...path, key]);
  };
  walk(body, []);
  return out;
};
// An object turned into an array carrying the same fields: isPlainJson walks only an array's
// items, and the log would write it as `[]`, so the check must refuse it as the schema does.
const arrayified = (value: unknown): unknown =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? Object.assign([], value)
    : value;
const mutated = (base: object) =>
  fc
    .tuple(
      fc.constantFrom<string[]>([], ...paths(base)),
      tricky,
      fc.constantFrom('keep', 'set', 'arrayify'),
    )
    .map(([path, value, mode]) => {
      const body = structuredClone(base) as Record<string, unknown>;
      if (mode === 'keep') return body;
      if (path.length === 0) return mode === 'arrayify' ? arrayified(body) : value;
      let target = body;
      for (const key of path.slice(0, -1)) target = target[key] as Record<string, unknown>;
      const last = path.at(-1) as string;
      if (mode === 'arrayify') target[last] = arrayified(target[last]);
      else if (value === undefined) delete target[last];
      else target[last] = value;
      return body;
    });

describe('built-in body checks', () => {
  it('accept exactly the assistant/message bodies the schema accepts', async () => {
    await fc.assert(
      fc.asyncProperty(assistantBody, (body) =>
        agrees('assistant/message', AssistantMessageBodySchema, body),
      ),
      { numRuns: 600 },
    );
  });

  it('accept exactly the user/message and tool/result bodies the schemas accept', async () => {
    // `meta` as the loop writes it (runtime context, inbox), other JSON objects, and non-objects.
    const meta = fc.oneof(
      fc.constant({ snapshot: { cwd: '/w', date: '2026-12-02' }, inboxId: 'i1' }),
      fc.constant({}),
      fc.constant(Object.assign(Object.create(null), { queue: 'next-step' })),
      fc.dictionary(fc.string({ maxLength: 3 }), anyValue, { maxKeys: 3 }),
      fc.constant({ nested: [1, { deep: null }] }),
      fc.constant([1]),
      anyValue,
    );
    const user = fc.record(
      {
        content: fc.oneof(fc.string(), anyValue),
        source: fc.oneof(fc.constant('user'), anyValue),
        pinned: fc.oneof(fc.boolean(), anyValue),
        meta,
      },
      { requiredKeys: [] },
    );
    const tool = fc.record(
      {
        toolCallId: fc.oneof(fc.string(), anyValue),
        toolName: fc.string(),
        content: fc.string(),
        isError: fc.oneof(fc.boolean(), anyValue),
        outcome: fc.oneof(fc.constant('unknown'), fc.constant('done'), anyValue),
        meta,
      },
      { requiredKeys: ['toolName', 'content'] },
    );
    await fc.assert(
      fc.asyncProperty(user, (body) => agrees('user/message', UserMessageBodySchema, body)),
      { numRuns: 300 },
    );
    await fc.assert(
      fc.asyncProperty(tool, (body) => agrees('tool/result', ToolResultBodySchema, body)),
      { numRuns: 300 },
    );
  });

  it('accept exactly the request/header and assistant/attempt bodies the schemas accept', async () => {
    const header = {
      ...{ turn: 1, step: 2, attempt: 1, model: 'm', provider: 'p', generation: 0 },
      ...{ systemHash: 'sha256:s', toolsHash: 'sha256:t', messageCount: 3 },
      ...{ addedHashes: ['0123456789abcdef'], messagesHash: 'sha256:m', requestHash: 'sha256:r' },
      seqs: { base: 4, keep: 1, ranges: [[2, 3]] },
      hashing: 'chain/1',
      maxOutputTokens: 100,
      sessionId: 'sess',
      prefix: { previous: 4, kept: 1, of: 2, extends: false, causes: ['tools-changed'] },
      estimatedTokens: 50,
      chain: { seq: 3, h: '0123456789abcdef0123456789abcdef' },
    };
    const attempt = {
      ...{ request: 5, attempt: 2, outcome: 'error', code: 'RATE_LIMITED', message: 'slow' },
      ...{ retryable: true, status: 429, cacheHitTokens: 1, cacheMissTokens: 2 },
      ...{ usage: { inputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 1 } },
      ...{ messageSeq: 6, prefixCauses: ['model-changed'] },
    };
    await fc.assert(
      fc.asyncProperty(mutated(header), (body) =>
        agrees('request/header', RequestHeaderBodySchema, body),
      ),
      { numRuns: 1500 },
    );
    await fc.assert(
      fc.asyncProperty(mutated(attempt), (body) =>
        agrees('assistant/attempt', AttemptBodySchema, body),
      ),
      { numRuns: 1000 },
    );
  });

  it('accept exactly the turn, step and request/context bodies the schemas accept', async () => {
    const cases: Array<[string, { safeParse(value: unknown): { success: boolean } }, object]> = [
      ['turn/start', TurnStartBodySchema, { inboxId: 'i1' }],
      ['step/start', StepStartBodySchema, { note: 'x' }],
      ['step/end', StepEndBodySchema, { finishReason: 'stop', toolCalls: 2, interrupted: false }],
      [
        'request/context',
        RequestContextBodySchema,
        { request: 3, contexts: { cwd: '/w', date: 'd' }, variables: { name: 'n' } },
      ],
      [
        'turn/end',
        TurnEndBodySchema,
        {
          ...{ reason: 'error', steps: 2, deniedTools: ['bash'] },
          usage: { inputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 1 },
          error: { code: 'RATE_LIMITED', message: 'slow' },
        },
      ],
    ];
    for (const [type, schema, base] of cases) {
      await fc.assert(
        fc.asyncProperty(fc.oneof(mutated(base), tricky), (body) => agrees(type, schema, body)),
        { numRuns: 400 },
      );
    }
  });

  it('accept exactly the prompt/system, tools/defined, tool/started and tool/approval bodies the schemas accept', async () => {
    const parameters = { type: 'object', properties: { path: { type: 'string' } } };
    const cases: Array<[string, { safeParse(value: unknown): { success: boolean } }, object]> = [
      ['prompt/system', PromptSystemBodySchema, { hash: 'sha256:s', text: 'You are "careful".' }],
      [
        'tools/defined',
        ToolsDefinedBodySchema,
        {
          hash: 'sha256:t',
          tools: [
            { name: 'read_file', description: 'Reads a file.', parameters },
            { name: 'bash-2', description: '', parameters: {} },
          ],
        },
      ],
      [
        'tool/started',
        ToolStartedBodySchema,
        { toolCallId: 'c1', toolName: 'bash', arguments: '{}' },
      ],
      [
        'tool/approval',
        ToolApprovalBodySchema,
        {
          ...{ toolCallId: 'c1', toolName: 'bash', decision: 'deny', by: 'policy' },
          ...{ reason: 'outside the workspace', scope: 'session' },
        },
      ],
      [
        'tool/approval',
        ToolApprovalBodySchema,
        {
          ...{ toolCallId: 'c2', toolName: 'bash', decision: 'allow', by: 'user', scope: 'once' },
          escalation: { network: true, paths: ['/tmp'] },
        },
      ],
    ];
    for (const [type, schema, base] of cases) {
      await fc.assert(
        fc.asyncProperty(fc.oneof(mutated(base), tricky), (body) => agrees(type, schema, body)),
        { numRuns: 600 },
      );
    }
  });

  it('refuse an array that carries the fields of a valid message body', async () => {
    const bodies: Array<[string, object]> = [
      ['user/message', { content: 'hi', source: 'user' }],
      ['assistant/message', { content: [{ type: 'text', text: 'x' }], finishReason: 'stop' }],
      ['tool/result', { toolCallId: 'c1', toolName: 'bash', content: 'ok', isError: false }],
    ];
    for (const [type, body] of bodies) {
      const session = await Session.create({ store: createMemoryStore(), id: 'arrays' });
      // Valid as an object; as an array the log would record `[]`.
      expect(() => session.append(type, body)).not.toThrow();
      expect(() => session.append(type, Object.assign([], body))).toThrow(
        expect.objectContaining({ code: 'INVALID_EVENT' }),
      );
    }
  });

  it('name the offending field of a refused assistant message', async () => {
    const session = await Session.create({ store: createMemoryStore(), id: 'named' });
    expect(() =>
      session.append(
        'assistant/message',
        { content: [{ type: 'text', text: 'x' }], finishReason: 'stop', attempt: 0 },
        { surfaceOp: { op: 'append' } },
      ),
    ).toThrow(/body\.attempt/);
  });
});
