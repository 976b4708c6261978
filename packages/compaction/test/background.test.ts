import type { SessionEvent, SessionLog } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { createCompactionEngine } from '../src/engine.js';
import { createTokenMeter } from '../src/token-meter.js';
import { scriptedSummarizer } from './doubles.js';
import { filler, newSession, say, toolStep } from './history.js';

const WINDOW = 10_000;
const thresholds = { soft: 0.5, high: 0.8, low: 0.45 };

function step(session: SessionLog, index: number): void {
  toolStep(
    session,
    { id: `c${index}`, name: 'read_file', args: { path: `src/f${index}.ts` } },
    filler(100, index),
    {
      turn: 1,
      step: index,
    },
  );
}

function typesOf(session: SessionLog): string[] {
  return session.events().map((event: SessionEvent) => event.type);
}

async function pressure(engine: ReturnType<typeof createCompactionEngine>, session: SessionLog) {
  return engine.compact({
    session,
    reason: 'pressure',
    contextWindow: WINDOW,
    system: 'S',
    tools: [],
  });
}

/** An engine preparing candidates in the background with a summariser that takes 2 s. */
async function slowBackground(firstMessage: string) {
  const summarizer = scriptedSummarizer({ delayMs: 2000 });
  const engine = createCompactionEngine({
    meter: createTokenMeter(),
    summarizer,
    background: true,
    thresholds,
  });
  const session = await newSession();
  say(session, firstMessage, { turn: 1 });
  return { summarizer, engine, session };
}

/** Adds tool steps until the engine starts a background candidate; returns the next step index. */
async function stepUntilCandidate(
  engine: ReturnType<typeof createCompactionEngine>,
  session: SessionLog,
): Promise<number> {
  let index = 1;
  while (engine.state(session).candidate === undefined) {
    step(session, index++);
    await pressure(engine, session);
  }
  return index;
}

/** Adds tool steps until the context reaches the hard mark; returns the next step index. */
function stepToHardMark(session: SessionLog, from: number): number {
  let index = from;
  while (createTokenMeter().measure({ session, system: 'S', tools: [] }).tokens < WINDOW * 0.8)
    step(session, index++);
  return index;
}

describe('background checkpoints with a summariser that takes 2 s', () => {
  it('prepares a candidate above the soft mark and commits it at the hard mark without waiting', async () => {
    const { summarizer, engine, session } = await slowBackground(
      'Refactor the loader. Never delete fixtures.',
    );
    let index = 1;
    let started = false;
    while (!started) {
      step(session, index++);
      const outcome = await pressure(engine, session);
      expect(outcome.status).toBe('not-needed');
      started = engine.state(session).candidate !== undefined;
    }
    const candidateRegion = engine.state(session).candidate?.region;
    await engine.whenIdle(session);
    expect(engine.state(session).candidate).toMatchObject({ ready: true, region: candidateRegion });
    expect(typesOf(session)).toContain('compaction/candidate');
    let outcome = await pressure(engine, session);
    while (outcome.status === 'not-needed') {
      step(session, index++);
      outcome = await pressure(engine, session);
    }
    expect(outcome.status).toBe('compacted');
    expect(summarizer.calls).toHaveLength(1);
    const start = session.events().find((event) => event.type === 'compaction/start');
    expect(start?.body).toMatchObject({ mode: 'background', region: candidateRegion });
    const checkpoint = session.deriveMessages().messages[0];
    expect(checkpoint?.role === 'user' && checkpoint.content).toContain('Never delete fixtures.');
    expect(checkpoint?.role === 'user' && checkpoint.content).toContain('Summarised');
  }, 20_000);

  it('discards a stale candidate and falls back to a synchronous compaction', async () => {
    const { engine, session } = await slowBackground('Refactor the loader.');
    let index = await stepUntilCandidate(engine, session);
    // Something else replaces part of the surface while the candidate is being written.
    const surface = session.surface();
    session.append(
      'user/message',
      { content: 'an external checkpoint', source: 'compact-checkpoint' },
      { surfaceOp: { op: 'replace', start: surface[0] as number, end: surface[2] as number } },
    );
    await engine.whenIdle(session);
    const discarded = session.events().find((event) => event.type === 'compaction/discarded');
    expect(discarded?.body).toMatchObject({ reason: expect.stringContaining('stale') });
    expect(typesOf(session)).not.toContain('compaction/candidate');
    let outcome = await pressure(engine, session);
    while (outcome.status === 'not-needed') {
      step(session, index++);
      outcome = await pressure(engine, session);
      if (engine.state(session).candidate) engine.cancelBackground(session);
    }
    expect(outcome.status).toBe('compacted');
    const start = session.events().find((event) => event.type === 'compaction/start');
    expect(start?.body).toMatchObject({ mode: 'sync' });
  }, 30_000);

  it('stops waiting for an in-flight candidate when the step is aborted, changing nothing', async () => {
    const { engine, session } = await slowBackground('Refactor the loader.');
    stepToHardMark(session, await stepUntilCandidate(engine, session));
    const surface = [...session.surface()];
    const outcome = await engine.compact({
      session,
      reason: 'pressure',
      contextWindow: WINDOW,
      system: 'S',
      tools: [],
      signal: AbortSignal.timeout(100),
    });
    expect(outcome.status).toBe('failed');
    expect(session.surface()).toEqual(surface);
    expect(engine.state(session)).toMatchObject({
      consecutiveFailures: 0,
      candidate: { ready: false },
    });
    engine.cancelBackground(session);
    expect(typesOf(session)).toContain('compaction/discarded');
  }, 20_000);

  it('waits for an in-flight candidate at the hard mark instead of starting over', async () => {
    const { summarizer, engine, session } = await slowBackground('Refactor the loader.');
    stepToHardMark(session, await stepUntilCandidate(engine, session));
    const outcome = await pressure(engine, session);
    expect(outcome.status).toBe('compacted');
    expect(summarizer.calls).toHaveLength(1);
    expect(typesOf(session).filter((type) => type.startsWith('compaction/'))).toEqual([
      'compaction/candidate',
      'compaction/start',
      'compaction/summary',
      'compaction/end',
    ]);
  }, 20_000);
});
