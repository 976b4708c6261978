import { createMemoryStore, Session } from '@spine/session-log';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOOP_THRESHOLDS } from './loop-detector.js';
import { createLoopGuard } from './loop-guard.js';

/** Appends one step calling `read` on `a.txt` (the same call every time) with its result. */
function sameCallStep(session: Session, turn: number, step: number): void {
  const at = { turn, step };
  session.append('step/start', {}, at);
  session.append(
    'assistant/message',
    {
      content: [
        { type: 'tool-call', id: `c${turn}_${step}`, name: 'read', arguments: '{"path":"a.txt"}' },
      ],
      finishReason: 'tool-calls',
    },
    { ...at, surfaceOp: { op: 'append' } },
  );
  session.append(
    'tool/result',
    { toolCallId: `c${turn}_${step}`, toolName: 'read', content: 'a', isError: false },
    { ...at, surfaceOp: { op: 'append' } },
  );
  session.append('step/end', { toolCalls: 1 }, at);
}

async function turnWithTwoSameCalls(turn: number): Promise<Session> {
  const session = await Session.create({ store: createMemoryStore() });
  session.append('turn/start', {}, { turn, step: 0 });
  session.append(
    'user/message',
    { content: 'go', source: 'user' },
    { turn, step: 0, surfaceOp: { op: 'append' } },
  );
  sameCallStep(session, turn, 1);
  sameCallStep(session, turn, 2);
  return session;
}

describe('the loop guard of a resumed turn', () => {
  it('counts the calls made before the interruption: the third same call is noted', async () => {
    const session = await turnWithTwoSameCalls(1);
    const guard = createLoopGuard(session, { ...DEFAULT_LOOP_THRESHOLDS }, { turn: 1 });
    sameCallStep(session, 1, 3);
    expect(guard.afterStep({ turn: 1, step: 3 }, true)).toBeUndefined();
    guard.close();
    const noted = session.events().filter((event) => event.type === 'loop/detected');
    expect(noted.map((event) => event.body)).toMatchObject([
      { kind: 'repeated-call', action: 'noted', count: 3 },
    ]);
    await session.close();
  });

  it('keeps counting after a note made before the interruption, and stops the turn', async () => {
    const session = await turnWithTwoSameCalls(1);
    const first = createLoopGuard(session, { ...DEFAULT_LOOP_THRESHOLDS }, { turn: 1 });
    sameCallStep(session, 1, 3);
    first.afterStep({ turn: 1, step: 3 }, true);
    sameCallStep(session, 1, 4);
    first.close(); // the process stops here; step 4's finding is lost with it
    const resumed = createLoopGuard(session, { ...DEFAULT_LOOP_THRESHOLDS }, { turn: 1 });
    sameCallStep(session, 1, 5);
    // Step 4 and step 5 went on after the note (stopAfter 2): stuck, with no second note.
    expect(resumed.afterStep({ turn: 1, step: 5 }, true)).toMatchObject({ kind: 'repeated-call' });
    resumed.close();
    const actions = session
      .events()
      .filter((event) => event.type === 'loop/detected')
      .map((event) => (event.body as { action: string }).action);
    expect(actions).toEqual(['noted', 'stopped']);
    await session.close();
  });

  it('starts from empty without the turn, and for a turn that has not started', async () => {
    for (const options of [{}, { turn: 2 }]) {
      const session = await turnWithTwoSameCalls(1);
      const guard = createLoopGuard(session, { ...DEFAULT_LOOP_THRESHOLDS }, options);
      sameCallStep(session, 1, 3);
      guard.afterStep({ turn: 1, step: 3 }, true);
      guard.close();
      expect(session.events().filter((event) => event.type === 'loop/detected')).toEqual([]);
      await session.close();
    }
  });
});
