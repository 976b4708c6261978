import { createMemoryStore, Session } from '@spine/session-log';
import { describe, expect, it } from 'vitest';
import { restoreLoopState } from './recovery.js';

const usage = { inputTokens: 10, cacheReadTokens: 5, cacheWriteTokens: 0, outputTokens: 2 };

describe('restoreLoopState', () => {
  it('finds no open turn after turn/end and sums usage', async () => {
    const session = await Session.create({ store: createMemoryStore() });
    session.append('turn/start', {}, { turn: 1, step: 0 });
    session.append(
      'assistant/message',
      { content: [{ type: 'text', text: 'hi' }], finishReason: 'stop', usage },
      { turn: 1, step: 1, surfaceOp: { op: 'append' } },
    );
    session.append('turn/end', { reason: 'completed', steps: 1 }, { turn: 1, step: 1 });
    const state = restoreLoopState(session);
    expect(state).toEqual({ lastTurn: 1, usage });
  });

  it('reports a step that died mid-stream with its last attempt', async () => {
    const session = await Session.create({ store: createMemoryStore() });
    session.append('turn/start', {}, { turn: 3, step: 0 });
    session.append('step/start', {}, { turn: 3, step: 2 });
    // A whole header: the protocol's schema refuses partial ones on append.
    const header = session.append(
      'request/header',
      {
        ...{ turn: 3, step: 2, attempt: 2, model: 'm', provider: 'p', generation: 0 },
        ...{ systemHash: 'sha256:s', toolsHash: 'sha256:t', messageCount: 0, addedHashes: [] },
        ...{ seqs: { ranges: [] }, messagesHash: 'sha256:m', requestHash: 'sha256:r' },
        prefix: { kept: 0, of: 0, extends: false, causes: [] },
      },
      { turn: 3, step: 2 },
    );
    const state = restoreLoopState(session);
    expect(state.open).toMatchObject({
      turn: 3,
      step: 2,
      phase: 'stream',
      attempt: 2,
      headerSeq: header.seq,
      attemptRecorded: false,
    });
  });

  it('lists the tool calls of an interrupted step that have no result', async () => {
    const session = await Session.create({ store: createMemoryStore() });
    session.append('turn/start', {}, { turn: 1, step: 0 });
    session.append('step/start', {}, { turn: 1, step: 1 });
    session.append(
      'assistant/message',
      {
        content: [
          { type: 'tool-call', id: 'a', name: 'read', arguments: '{}' },
          { type: 'tool-call', id: 'b', name: 'read', arguments: '{}' },
        ],
        finishReason: 'tool-calls',
      },
      { turn: 1, step: 1, surfaceOp: { op: 'append' } },
    );
    session.append(
      'tool/result',
      { toolCallId: 'a', toolName: 'read', content: 'x', isError: false },
      { turn: 1, step: 1, surfaceOp: { op: 'append' } },
    );
    const state = restoreLoopState(session);
    expect(state.open?.phase).toBe('tools');
    expect(state.open?.pendingCalls.map((call) => call.id)).toEqual(['b']);
  });
});
