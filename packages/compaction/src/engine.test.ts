import type { SessionEvent, SessionLog } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { failingAppends, scriptedSummarizer } from '../test/doubles.js';
import { filler, newSession, propose, say, toolStep } from '../test/history.js';
import { createCompactionEngine } from './engine.js';
import { createTokenMeter } from './token-meter.js';
import { resolveTokenizer } from './tokenizer.js';

const meter = createTokenMeter();
const WINDOW = 6000;
const base = { contextWindow: WINDOW, system: 'You are a coding agent.', tools: [] };

async function longSession(steps = 40): Promise<SessionLog> {
  const session = await newSession();
  say(session, 'Fix the failing build. Never run the migration on prod.', { turn: 1 });
  for (let step = 1; step <= steps; step++) {
    const call = { id: `c${step}`, name: 'read_file', args: { path: `src/module-${step}.ts` } };
    toolStep(session, call, filler(100, step), { turn: 1, step });
  }
  return session;
}

function snapshot(session: SessionLog) {
  return {
    surface: [...session.surface()],
    generation: session.replaceGeneration,
    messages: session.deriveMessages().messages.length,
  };
}

function typesAfter(session: SessionLog, seq: number): string[] {
  return session.events({ from: seq + 1 }).map((event: SessionEvent) => event.type);
}

describe('createCompactionEngine', () => {
  it('runs the transaction start → summary → replace → end and lands below the low mark', async () => {
    const session = await longSession();
    const engine = createCompactionEngine({ meter, summarizer: scriptedSummarizer() });
    const before = session.lastSeq;
    const outcome = await engine.compact({
      ...base,
      session,
      reason: 'pressure',
      turn: 1,
      step: 40,
    });
    expect(outcome.status).toBe('compacted');
    expect(typesAfter(session, before)).toEqual([
      'compaction/start',
      'compaction/summary',
      'user/message',
      'compaction/end',
    ]);
    const checkpoint = session.get(before + 3) as SessionEvent;
    expect(checkpoint.surfaceOp).toMatchObject({ op: 'replace', start: 2 });
    expect(checkpoint.sourceEventSeqs?.slice(0, 3)).toEqual([before + 1, before + 2, 2]);
    const first = session.deriveMessages().messages[0];
    expect(first).toMatchObject({ role: 'user', source: 'compact-checkpoint' });
    expect(first?.role === 'user' && first.content).toContain('Never run the migration on prod.');
    expect(first?.role === 'user' && first.content).toContain('### Primary Request and Intent');
    expect(outcome.tokensAfter).toBeLessThan(WINDOW * 0.45);
    expect(session.events().length).toBe(before + 4);
  });

  it('does nothing below the high mark and recomputes marks when the model changes', async () => {
    const session = await longSession();
    const engine = createCompactionEngine({ meter });
    const big = await engine.compact({
      ...base,
      contextWindow: 200_000,
      session,
      reason: 'pressure',
    });
    expect(big.status).toBe('not-needed');
    const small = await engine.compact({ ...base, session, reason: 'pressure' });
    expect(small.status).toBe('compacted');
  });

  it('falls back to the deterministic record when the summariser fails, and says so', async () => {
    const session = await longSession();
    const summarizer = scriptedSummarizer({ fail: new Error('model unavailable') });
    const engine = createCompactionEngine({ meter, summarizer });
    const outcome = await engine.compact({ ...base, session, reason: 'pressure' });
    expect(outcome.status).toBe('compacted');
    expect(outcome.message).toContain('Deterministic checkpoint only');
    const summary = session.events().find((event) => event.type === 'compaction/summary');
    expect(summary?.body).toMatchObject({
      summary: null,
      summarizerError: expect.stringContaining('model unavailable'),
    });
    const end = session.events().find((event) => event.type === 'compaction/end');
    expect(end?.body).toMatchObject({ deterministicOnly: true });
  });

  it.each([
    ['compaction/start', false],
    ['compaction/summary', false],
    ['user/message', true],
  ])('leaves the surface exactly as it was when appending %s fails', async (type, onlyReplace) => {
    const session = await longSession();
    const engine = createCompactionEngine({ meter, summarizer: scriptedSummarizer() });
    const before = snapshot(session);
    const lastSeq = session.lastSeq;
    const wrapped = failingAppends(session, type, onlyReplace);
    const outcome = await engine.compact({ ...base, session: wrapped, reason: 'pressure' });
    expect(outcome.status).toBe('failed');
    expect(outcome.message).toContain('The context is unchanged');
    expect(snapshot(session)).toEqual(before);
    expect(typesAfter(session, lastSeq)).toContain('compaction/failed');
  });

  it('records a select failure when nothing can be compacted without splitting the open batch', async () => {
    const session = await newSession();
    say(session, filler(3000, 1), { turn: 1 });
    propose(session, [{ id: 'open', name: 'bash', args: { command: 'make' } }], {
      turn: 1,
      step: 1,
    });
    const engine = createCompactionEngine({ meter });
    const before = snapshot(session);
    const outcome = await engine.compact({ ...base, session, reason: 'overflow' });
    expect(outcome.status).toBe('failed');
    expect(outcome.message).toContain('Compaction failed (select)');
    expect(snapshot(session)).toEqual(before);
    const failed = session.events().find((event) => event.type === 'compaction/failed');
    expect(failed?.body).toMatchObject({ stage: 'select', compactionId: null });
  });

  it('leaves the surface as it was when building the checkpoint throws', async () => {
    const session = await longSession();
    const engine = createCompactionEngine({
      meter,
      isPinned: () => {
        throw new Error('injected failure in the pin predicate');
      },
    });
    const before = snapshot(session);
    const outcome = await engine.compact({ ...base, session, reason: 'manual' });
    expect(outcome.status).toBe('failed');
    expect(snapshot(session)).toEqual(before);
    const failed = session.events().find((event) => event.type === 'compaction/failed');
    expect(failed?.body).toMatchObject({
      stage: 'checkpoint',
      message: 'injected failure in the pin predicate',
    });
  });

  it('keeps a committed checkpoint when only the compaction/end marker fails to append', async () => {
    const session = await longSession();
    const engine = createCompactionEngine({ meter });
    const outcome = await engine.compact({
      ...base,
      session: failingAppends(session, 'compaction/end'),
      reason: 'manual',
    });
    expect(outcome.status).toBe('compacted');
    expect(session.replaceGeneration).toBe(1);
    expect(typesAfter(session, 0)).not.toContain('compaction/end');
  });

  it('leaves the surface as it was when aborted during summarisation', async () => {
    const session = await longSession();
    const engine = createCompactionEngine({
      meter,
      summarizer: scriptedSummarizer({ delayMs: 5000 }),
    });
    const before = snapshot(session);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user pressed Esc')), 50);
    const outcome = await engine.compact({
      ...base,
      session,
      reason: 'manual',
      signal: controller.signal,
    });
    expect(outcome.status).toBe('failed');
    expect(snapshot(session)).toEqual(before);
    const failed = session.events().find((event) => event.type === 'compaction/failed');
    expect(failed?.body).toMatchObject({ stage: 'aborted' });
    expect(engine.state(session).consecutiveFailures).toBe(0);
  });

  it('counts a compaction that cannot reach the low mark as failed and trips the breaker', async () => {
    const session = await newSession();
    say(session, 'Summarise the log.', { turn: 1 });
    toolStep(session, { id: 'a', name: 'read_file', args: { path: 'small.txt' } }, 'ok', {
      turn: 1,
      step: 1,
    });
    toolStep(session, { id: 'b', name: 'read_file', args: { path: 'huge.log' } }, filler(5200, 1), {
      turn: 1,
      step: 2,
    });
    const engine = createCompactionEngine({
      meter,
      summarizer: scriptedSummarizer(),
      maxConsecutiveFailures: 3,
    });
    const surface = snapshot(session);
    const outcomes = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      outcomes.push(await engine.compact({ ...base, session, reason: 'pressure' }));
    }
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['failed', 'failed', 'failed']);
    expect(outcomes[2]?.message).toContain('Automatic compaction is now off');
    expect(snapshot(session)).toEqual(surface);
    const eventsBefore = session.lastSeq;
    const fourth = await engine.compact({ ...base, session, reason: 'overflow' });
    expect(fourth.status).toBe('tripped');
    expect(session.lastSeq).toBe(eventsBefore);
    const restored = createCompactionEngine({ meter });
    expect(restored.state(session)).toMatchObject({ tripped: true, consecutiveFailures: 3 });
    restored.resetBreaker(session);
    expect(restored.state(session).tripped).toBe(false);
  });

  it('honours a disabled auto setting on the pressure and overflow paths but not for /compact', async () => {
    const session = await longSession();
    const engine = createCompactionEngine({ meter, auto: false });
    expect((await engine.compact({ ...base, session, reason: 'pressure' })).status).toBe(
      'disabled',
    );
    const overflow = await engine.compact({ ...base, session, reason: 'overflow' });
    expect(overflow.status).toBe('disabled');
    expect(overflow.message).toContain('automatic compaction is disabled');
    expect((await engine.compact({ ...base, session, reason: 'manual' })).status).toBe('compacted');
  });

  it('never compacts into an unanswered tool batch', async () => {
    const session = await longSession();
    const pending = propose(session, [{ id: 'open', name: 'run', args: { command: 'npm test' } }], {
      turn: 1,
      step: 41,
    });
    const engine = createCompactionEngine({ meter, keepRecent: { tokens: 0 } });
    const outcome = await engine.compact({ ...base, session, reason: 'overflow' });
    expect(outcome.status).toBe('compacted');
    const start = session.events().find((event) => event.type === 'compaction/start');
    expect(((start as SessionEvent).body as { region: { end: number } }).region.end).toBeLessThan(
      pending,
    );
    expect(session.surface()).toContain(pending);
  });

  it('scales an undercounting meter on overflow and calibrates it', async () => {
    const session = await longSession();
    const o200k = resolveTokenizer('o200k');
    const blind = createTokenMeter({
      tokenizer: { name: 'undercounting', count: (text) => Math.floor(o200k.count(text) * 0.6) },
    });
    const engine = createCompactionEngine({ meter: blind });
    const measured = blind.measure({ session, system: base.system, tools: [] }).tokens;
    expect((await engine.compact({ ...base, session, reason: 'pressure' })).status).toBe(
      'not-needed',
    );
    const outcome = await engine.compact({ ...base, session, reason: 'overflow' });
    expect(outcome).toMatchObject({ status: 'compacted', tokensBefore: Math.ceil(measured * 1.5) });
    expect(blind.factor).toBeCloseTo(1.5);
  });

  it('shortens long lists of the record rather than failing when the full record does not fit', async () => {
    const session = await newSession();
    say(session, 'Survey the tree. Never edit generated files.', { turn: 1 });
    for (let step = 1; step <= 150; step++) {
      toolStep(
        session,
        { id: `r${step}`, name: 'read_file', args: { path: `src/deep/module-${step}.ts` } },
        'ok',
        {
          turn: 1,
          step,
        },
      );
    }
    const engine = createCompactionEngine({ meter, summarizer: scriptedSummarizer() });
    const outcome = await engine.compact({
      ...base,
      contextWindow: 3000,
      session,
      reason: 'manual',
    });
    expect(outcome.status).toBe('compacted');
    const text = session.deriveMessages().messages[0];
    const content = text?.role === 'user' ? text.content : '';
    expect(content).toContain('Never edit generated files.');
    expect(content).toMatch(/\(\d+ earlier entries left out; recall_history finds them\)/);
    const summary = session.events().find((event) => event.type === 'compaction/summary');
    expect(((summary as SessionEvent).body as { facts: unknown[] }).facts.length).toBeGreaterThan(
      140,
    );
  });

  it('carries pinned content verbatim', async () => {
    const session = await newSession();
    const pinnedText = 'Deploys go through `make release` only.\nThe staging DB is read-only.';
    say(session, pinnedText, { turn: 1, pinned: true });
    const note = { id: 'p', name: 'read_file', args: { path: 'NOTES.md' } };
    toolStep(session, note, 'IMPORTANT: API keys live in vault, path secret/app.', {
      turn: 1,
      step: 1,
    });
    for (let step = 2; step < 40; step++) {
      toolStep(
        session,
        { id: `c${step}`, name: 'grep', args: { pattern: `x${step}` } },
        filler(100, step),
        { turn: 1, step },
      );
    }
    const engine = createCompactionEngine({
      meter,
      isPinned: (event) =>
        event.type === 'tool/result' && (event.body as { toolCallId: string }).toolCallId === 'p',
    });
    await engine.compact({ ...base, session, reason: 'manual' });
    const text = session.deriveMessages().messages[0];
    expect(text?.role === 'user' && text.content).toContain(pinnedText);
    expect(text?.role === 'user' && text.content).toContain(
      'IMPORTANT: API keys live in vault, path secret/app.',
    );
  });

  it('rejects thresholds that are out of order', () => {
    expect(() => createCompactionEngine({ meter, thresholds: { low: 0.9, high: 0.5 } })).toThrow(
      /low <= soft <= high/,
    );
  });
});
