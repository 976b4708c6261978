import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The example session as it was recorded before the JSONL store chained its lines and request
 * headers said `hashing: 'chain/1'`: a real legacy log (the bundled example has been recorded
 * again since). Tests of what Spine does with old logs read it.
 */
export const BEFORE_CHAIN = join(
  import.meta.dirname,
  'fixtures',
  'example-fix-add-before-chain.jsonl',
);

/**
 * The bundled example session's events without its chain: no line carries its chain value (`h`)
 * and no request header its record of the chain head. For tests that edit the example into
 * another session: an edited copy of a chained log would rightly read as tampered.
 */
export function unchainedExampleEvents(): Record<string, unknown>[] {
  const file = join(import.meta.dirname, '..', 'examples', 'sessions', 'example-fix-add.jsonl');
  return readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => {
      const { h: _value, ...event } = JSON.parse(line) as Record<string, unknown>;
      const body = event.body as Record<string, unknown>;
      if (event.type === 'request/header') delete body.chain;
      return event;
    });
}

/** A small, hand-written session in the JSONL format of DESIGN.md (one tool call, then an answer). */
export function sampleSessionEvents(id: string): object[] {
  const at = '2026-11-30T09:00:00.000Z';
  return [
    {
      seq: 1,
      type: 'session/header',
      at,
      body: {
        formatVersion: 1,
        sessionId: id,
        createdAt: at,
        cwd: '/tmp/ws',
        title: 'fix the adder',
        model: 'deepseek/deepseek-v4-flash',
      },
    },
    { seq: 2, type: 'turn/start', at, turn: 1, body: {} },
    {
      seq: 3,
      type: 'user/message',
      at,
      turn: 1,
      body: { content: 'fix the adder', source: 'user' },
      surfaceOp: { op: 'append' },
    },
    {
      seq: 4,
      type: 'assistant/message',
      at,
      turn: 1,
      step: 1,
      body: {
        content: [
          { type: 'reasoning', text: 'look at the file first' },
          { type: 'text', text: 'Reading it.' },
          { type: 'tool-call', id: 'call_1', name: 'read', arguments: '{"path":"src/add.js"}' },
        ],
        finishReason: 'tool-calls',
        usage: {
          inputTokens: 100,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          outputTokens: 20,
          costUsd: 0.001,
        },
      },
      surfaceOp: { op: 'append' },
    },
    {
      seq: 5,
      type: 'tool/started',
      at,
      turn: 1,
      step: 1,
      body: { toolCallId: 'call_1', toolName: 'read', arguments: '{"path":"src/add.js"}' },
    },
    {
      seq: 6,
      type: 'tool/result',
      at,
      turn: 1,
      step: 1,
      body: {
        toolCallId: 'call_1',
        toolName: 'read',
        content: 'export const add = (a, b) => a - b;',
        isError: false,
      },
      surfaceOp: { op: 'append' },
    },
    {
      seq: 7,
      type: 'assistant/message',
      at,
      turn: 1,
      step: 2,
      body: {
        content: [{ type: 'text', text: 'The adder subtracts; it should add.' }],
        finishReason: 'stop',
        usage: {
          inputTokens: 20,
          cacheReadTokens: 100,
          cacheWriteTokens: 0,
          outputTokens: 10,
          costUsd: 0.0005,
        },
      },
      surfaceOp: { op: 'append' },
    },
    { seq: 8, type: 'turn/end', at, turn: 1, body: { reason: 'completed', steps: 2 } },
  ];
}
