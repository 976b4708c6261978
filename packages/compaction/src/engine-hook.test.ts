import type { SessionLog } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { scriptedSummarizer } from '../test/doubles.js';
import { filler, newSession, say, toolStep } from '../test/history.js';
import { createCompactionEngine } from './engine.js';
import { createTokenMeter } from './token-meter.js';
import type { BeforeCompactInfo } from './types.js';

const WINDOW = 6000;
const base = { contextWindow: WINDOW, system: 'You are a coding agent.', tools: [] };

async function sessionOf(steps: number): Promise<SessionLog> {
  const session = await newSession();
  say(session, 'Fix the failing build.', { turn: 1 });
  for (let step = 1; step <= steps; step++) {
    const call = { id: `c${step}`, name: 'read_file', args: { path: `src/m${step}.ts` } };
    toolStep(session, call, filler(100, step), { turn: 1, step });
  }
  return session;
}

function recording() {
  const calls: Array<BeforeCompactInfo & { lastSeqThen: number }> = [];
  return {
    calls,
    onBeforeCompact(info: BeforeCompactInfo) {
      calls.push({ ...info, lastSeqThen: info.session.lastSeq });
    },
  };
}

describe('onBeforeCompact', () => {
  it('runs before a compaction that commits, with the engine’s own figures, before anything is recorded', async () => {
    const session = await sessionOf(40);
    const hook = recording();
    const meter = createTokenMeter();
    const engine = createCompactionEngine({
      meter,
      summarizer: scriptedSummarizer(),
      onBeforeCompact: hook.onBeforeCompact,
    });
    const before = session.lastSeq;
    const outcome = await engine.compact({
      ...base,
      maxOutputTokens: 1000,
      session,
      reason: 'pressure',
    });
    expect(outcome.status).toBe('compacted');
    expect(hook.calls).toHaveLength(1);
    const [call] = hook.calls;
    expect(call).toMatchObject({ reason: 'pressure', window: 5000, threshold: 4000 });
    expect(call?.session).toBe(session);
    expect(call?.tokens).toBe(outcome.tokensBefore);
    expect(call?.tokens).toBeGreaterThanOrEqual(4000);
    expect(call?.lastSeqThen).toBe(before);
    expect(call && 'focus' in call).toBe(false);
  });

  it('is not called below the high mark, nor when compaction is disabled', async () => {
    const small = await sessionOf(3);
    const hook = recording();
    const engine = createCompactionEngine({
      meter: createTokenMeter(),
      onBeforeCompact: hook.onBeforeCompact,
    });
    expect((await engine.compact({ ...base, session: small, reason: 'pressure' })).status).toBe(
      'not-needed',
    );
    const off = createCompactionEngine({
      meter: createTokenMeter(),
      auto: false,
      onBeforeCompact: hook.onBeforeCompact,
    });
    const big = await sessionOf(40);
    expect((await off.compact({ ...base, session: big, reason: 'overflow' })).status).toBe(
      'disabled',
    );
    expect(hook.calls).toEqual([]);
  });

  it('is told the reason and focus of a manual compaction', async () => {
    const session = await sessionOf(40);
    const hook = recording();
    const engine = createCompactionEngine({
      meter: createTokenMeter(),
      onBeforeCompact: hook.onBeforeCompact,
    });
    await engine.compact({ ...base, session, reason: 'manual', focus: 'the build' });
    expect(hook.calls.map(({ reason, focus }) => ({ reason, focus }))).toEqual([
      { reason: 'manual', focus: 'the build' },
    ]);
  });

  it('waits for an async hook, and a hook that throws leaves the surface as it was', async () => {
    const session = await sessionOf(40);
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const order: string[] = [];
    const waiting = createCompactionEngine({
      meter: createTokenMeter(),
      onBeforeCompact: async () => {
        order.push('hook started');
        await gate;
        order.push('hook done');
      },
    });
    const running = waiting.compact({ ...base, session, reason: 'manual' }).then((outcome) => {
      order.push(outcome.status);
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['hook started']);
    release();
    await running;
    expect(order).toEqual(['hook started', 'hook done', 'compacted']);

    const other = await sessionOf(40);
    const surface = [...other.surface()];
    const lastSeq = other.lastSeq;
    const failing = createCompactionEngine({
      meter: createTokenMeter(),
      onBeforeCompact: () => {
        throw new Error('hook refused');
      },
    });
    await expect(failing.compact({ ...base, session: other, reason: 'manual' })).rejects.toThrow(
      'hook refused',
    );
    expect(other.surface()).toEqual(surface);
    expect(other.lastSeq).toBe(lastSeq);
    expect(failing.state(other).running).toBe(false);
  });
});
