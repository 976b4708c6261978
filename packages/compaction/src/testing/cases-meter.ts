// TokenMeter conformance: counting, measuring a session's surface, caching and calibration.
import type { SessionLog, TokenMeasure, TokenMeter, ToolSpec } from '@spine/protocol';
import { ask, fillSession, step, words } from './history.js';
import { type ConformanceCase, ensure, show, works } from './kit.js';

/** What the TokenMeter cases get: factories for fresh meters and fresh, empty sessions. */
export interface TokenMeterFixture {
  /** A fresh meter that has observed nothing. */
  meter: () => TokenMeter | Promise<TokenMeter>;
  /** A fresh, empty session (an in-memory `Session` from `@spine/session-log` will do). */
  session: () => SessionLog | Promise<SessionLog>;
}

const TOOLS: readonly ToolSpec[] = [
  {
    name: 'read_file',
    description: 'Reads a file of the workspace.',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
];
const SYSTEM = 'You are a coding agent working in a repository.';

async function measured(meter: TokenMeter, session: SessionLog, system = SYSTEM, tools = TOOLS) {
  const measure = await works(() => meter.measure({ session, system, tools }), 'meter.measure()');
  ensure(
    typeof measure === 'object' && measure !== null,
    `meter.measure(): expected { tokens, rawTokens, factor }, got ${show(measure)}`,
  );
  for (const key of ['tokens', 'rawTokens', 'factor'] as const) {
    const value = measure[key];
    ensure(
      typeof value === 'number' && Number.isFinite(value) && value >= 0,
      `meter.measure().${key}: expected a finite number >= 0, got ${show(value)}`,
    );
  }
  return measure as TokenMeasure;
}

/** The TokenMeter cases, in a stable order. */
export const tokenMeterCases: readonly ConformanceCase<TokenMeterFixture>[] = [
  {
    name: 'declares specificationVersion 1',
    async run(fixture) {
      const meter = await fixture.meter();
      ensure(
        meter.specificationVersion === 1,
        `meter.specificationVersion: expected 1, got ${show(meter.specificationVersion)}`,
      );
    },
  },
  {
    name: 'counts text deterministically: 0 for no text, more tokens for more text',
    async run(fixture) {
      const meter = await fixture.meter();
      const empty = meter.countText('');
      ensure(empty === 0, `countText(''): expected 0, got ${show(empty)}`);
      const text = words(200, 1);
      const once = meter.countText(text);
      ensure(
        Number.isInteger(once) && once > 0,
        `countText(200 words): expected a positive integer, got ${show(once)}`,
      );
      const again = meter.countText(text);
      ensure(
        again === once,
        `countText is not deterministic: ${once} then ${again} for the same text`,
      );
      const twice = meter.countText(`${text} ${text}`);
      ensure(
        twice > once,
        `countText(text twice): expected more than ${once} (the count of the text once), got ${show(twice)}`,
      );
    },
  },
  {
    name: 'measures a session with tokens = rawTokens × factor before any observation',
    async run(fixture) {
      const meter = await fixture.meter();
      const session = fillSession(await fixture.session(), 5);
      const { tokens, rawTokens, factor } = await measured(meter, session);
      ensure(
        rawTokens > 0,
        `measure().rawTokens: expected > 0 for a 5-step session, got ${rawTokens}`,
      );
      ensure(
        Math.abs(tokens - rawTokens * factor) <= Math.max(2, tokens * 0.01),
        `measure(): expected tokens ≈ rawTokens × factor, got tokens ${tokens}, rawTokens ${rawTokens}, factor ${factor}`,
      );
    },
  },
  {
    name: 'measures more when the surface, the system prompt or the tools grow',
    async run(fixture) {
      const meter = await fixture.meter();
      const session = fillSession(await fixture.session(), 3);
      const before = await measured(meter, session);
      step(session, 1, 4, 200);
      const after = await measured(meter, session);
      ensure(
        after.rawTokens > before.rawTokens,
        `measure() after appending a 200-word tool result: expected more than ${before.rawTokens} raw tokens, got ${after.rawTokens} (is the surface counted?)`,
      );
      const withSystem = await measured(meter, session, `${SYSTEM}\n${words(300, 9)}`);
      ensure(
        withSystem.rawTokens > after.rawTokens,
        `measure() with a 300-word longer system prompt: expected more than ${after.rawTokens} raw tokens, got ${withSystem.rawTokens} (is the system prompt counted?)`,
      );
      const noTools = await measured(meter, session, SYSTEM, []);
      ensure(
        noTools.rawTokens < after.rawTokens,
        `measure() without tools: expected fewer than ${after.rawTokens} raw tokens, got ${noTools.rawTokens} (are the tools counted?)`,
      );
    },
  },
  {
    name: 'measures less after a surface replace folds history into a short checkpoint',
    async run(fixture) {
      const meter = await fixture.meter();
      const session = fillSession(await fixture.session(), 8);
      const before = await measured(meter, session);
      const surface = session.surface();
      const start = surface[1] as number;
      const end = surface[surface.length - 3] as number;
      session.append(
        'user/message',
        { content: 'Checkpoint: modules 1 to 7 were read.', source: 'compact-checkpoint' },
        { turn: 1, surfaceOp: { op: 'replace', start, end } },
      );
      const after = await measured(meter, session);
      ensure(
        after.rawTokens < before.rawTokens / 2,
        `measure() after replacing most of the surface: expected fewer than half of ${before.rawTokens} raw tokens, got ${after.rawTokens} (does the meter follow replaces?)`,
      );
    },
  },
  {
    name: 'gives the same count measuring step by step as a fresh meter measuring once',
    async run(fixture) {
      const incremental = await fixture.meter();
      const session = await fixture.session();
      ask(session, 'Audit the modules.', 1);
      for (let index = 1; index <= 6; index++) {
        step(session, 1, index, 40 + index * 10);
        await measured(incremental, session);
      }
      const last = await measured(incremental, session);
      const fresh = await measured(await fixture.meter(), session);
      ensure(
        last.rawTokens === fresh.rawTokens,
        `measure(): ${last.rawTokens} raw tokens after measuring every step, but a fresh meter counts ${fresh.rawTokens} (the cache drifts)`,
      );
    },
  },
  {
    name: 'moves its estimate towards the provider-reported tokens it observes',
    async run(fixture) {
      const meter = await fixture.meter();
      const session = fillSession(await fixture.session(), 5);
      const before = await measured(meter, session);
      const reported = before.rawTokens * 2;
      for (let index = 0; index < 3; index++) {
        await works(
          () => meter.observe({ rawTokens: before.rawTokens, reportedTokens: reported }),
          'meter.observe()',
        );
      }
      const after = await measured(meter, session);
      ensure(
        Math.abs(after.tokens - reported) < Math.abs(before.tokens - reported) / 2,
        `measure() after observing the provider report ${reported} tokens for ${before.rawTokens} raw three times: expected an estimate near ${reported}, got ${after.tokens} (before: ${before.tokens})`,
      );
    },
  },
  {
    name: 'ignores observations without a usable count (zero, negative, NaN)',
    async run(fixture) {
      const meter = await fixture.meter();
      const session = fillSession(await fixture.session(), 3);
      const before = await measured(meter, session);
      for (const observation of [
        { rawTokens: 0, reportedTokens: 0 },
        { rawTokens: before.rawTokens, reportedTokens: -5 },
        { rawTokens: Number.NaN, reportedTokens: 100 },
      ]) {
        await works(() => meter.observe(observation), `meter.observe(${show(observation)})`);
      }
      const after = await measured(meter, session);
      ensure(
        after.tokens === before.tokens,
        `measure() after unusable observations: expected the estimate to stay ${before.tokens}, got ${after.tokens}`,
      );
    },
  },
];
