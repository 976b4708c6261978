// The @spine/compaction/testing kits: Spine's own TokenMeter, Summarizer and CompactionEngine
// pass every case (one test each), and a deliberately broken implementation of each fails the
// cases it should, with messages that say what went wrong.
import {
  type ConformanceReport,
  checkCompactionEngine,
  checkSummarizer,
  checkTokenMeter,
  compactionEngineConformanceCases,
  summarizerConformanceCases,
  tokenMeterConformanceCases,
} from '@spine/compaction/testing';
import { createOpenAICompatibleModel } from '@spine/llm';
import type {
  CompactionEngine,
  Message,
  SessionLog,
  Summarizer,
  TokenMeter,
} from '@spine/protocol';
import { createMemoryStore, Session } from '@spine/session-log';
import { createScriptedModelServer, type ScriptedModelServer } from '@spine/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompactionEngine, createModelSummarizer, createTokenMeter } from '../src/index.js';

const SUMMARY =
  '### Primary Request and Intent\nFix the build.\n### Files and Code\nsrc/parser.ts\n### Errors and Fixes\nTypeError, open\n### Next Step\nread the parser\n### Critical Context\nnone';
const CASE_TIMEOUT = 60_000;

const sessions: Session[] = [];
async function newSession(): Promise<SessionLog> {
  const session = await Session.create({ store: createMemoryStore(), cwd: '/kit' });
  sessions.push(session);
  return session;
}
afterAll(async () => {
  for (const session of sessions.splice(0)) await session.close();
});

function failures(report: ConformanceReport): Record<string, string> {
  return Object.fromEntries(report.failed.map(({ name, message }) => [name, message]));
}

describe('TokenMeter kit', () => {
  const fixture = { meter: () => createTokenMeter(), session: newSession };
  for (const c of tokenMeterConformanceCases) {
    it(`createTokenMeter ${c.name}`, () => c.run(fixture), CASE_TIMEOUT);
  }

  it(
    'reports a meter that ignores the session and its observations',
    async () => {
      const broken: TokenMeter = {
        specificationVersion: 1,
        countText: (text) => Math.ceil(text.length / 4),
        measure: ({ system, tools }) => {
          const rawTokens = Math.ceil((system.length + JSON.stringify(tools).length) / 4);
          return { rawTokens, tokens: rawTokens, factor: 1 };
        },
        observe: () => {},
      };
      const report = await checkTokenMeter({ meter: () => broken, session: newSession });
      expect(report.ok).toBe(false);
      expect(report.passed + report.failed.length).toBe(tokenMeterConformanceCases.length);
      const byName = failures(report);
      expect(Object.keys(byName)).toEqual([
        'measures more when the surface, the system prompt or the tools grow',
        'measures less after a surface replace folds history into a short checkpoint',
        'moves its estimate towards the provider-reported tokens it observes',
      ]);
      expect(byName['measures more when the surface, the system prompt or the tools grow']).toMatch(
        /^measure\(\) after appending a 200-word tool result: expected more than \d+ raw tokens, got \d+ \(is the surface counted\?\)$/,
      );
      expect(byName['moves its estimate towards the provider-reported tokens it observes']).toMatch(
        /three times: expected an estimate near \d+, got \d+ \(before: \d+\)$/,
      );
    },
    CASE_TIMEOUT,
  );
});

describe('Summarizer kit', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    // Frames 10 ms apart, so an abort 30 ms in lands mid-stream.
    server = await createScriptedModelServer({
      replies: () => ({ text: SUMMARY, chunkSize: 16, delayMs: 10 }),
    });
  });
  afterAll(() => server.close());
  const summarizer = () =>
    createModelSummarizer({
      model: createOpenAICompatibleModel({
        baseUrl: server.baseUrl,
        apiKey: 'k',
        provider: 'deepseek',
        idleTimeoutMs: 5000,
      }),
      modelId: 'deepseek-v4-flash',
    });
  for (const c of summarizerConformanceCases) {
    it(`createModelSummarizer ${c.name}`, () => c.run({ summarizer }), CASE_TIMEOUT);
  }

  it(
    'reports a summariser that ignores its signal and reorders the messages it is given',
    async () => {
      const broken: Summarizer = {
        specificationVersion: 1,
        async summarize(input) {
          (input.messages as Message[]).reverse();
          await new Promise((resolve) => setTimeout(resolve, 80));
          return { summary: SUMMARY, usage: { inputTokens: 10, outputTokens: -1 } as never };
        },
      };
      const report = await checkSummarizer({ summarizer: () => broken });
      const byName = failures(report);
      expect(byName).toEqual({
        'summarises with a focus, and leaves its input as it was':
          'summarize(): the input was changed (a summariser must not mutate the region it is given)',
        'reports usage, when it does, as non-negative integer token counts':
          'summarize().usage.outputTokens: expected a non-negative integer, got -1',
        'rejects when its signal is already aborted': expect.stringMatching(
          /^summarize\(\) with an aborted signal: expected a rejection, but it resolved with \{"summary":/,
        ),
        'stops and rejects when its signal aborts during the call': expect.stringMatching(
          /^summarize\(\): the signal aborted, but it still resolved \d+ ms later \(expected a rejection\)$/,
        ),
      });
      expect(report.passed).toBe(summarizerConformanceCases.length - 4);
    },
    CASE_TIMEOUT,
  );
});

describe('CompactionEngine kit', () => {
  const fixture = {
    engine: () => createCompactionEngine({ meter: createTokenMeter() }),
    session: newSession,
  };
  for (const c of compactionEngineConformanceCases) {
    it(`createCompactionEngine ${c.name}`, () => c.run(fixture), CASE_TIMEOUT);
  }

  it(
    'passes with a model summariser too (checkCompactionEngine)',
    async () => {
      const summarizer: Summarizer = {
        specificationVersion: 1,
        summarize: async (input) => ({
          summary: `${SUMMARY}\n(${input.messages.length} messages)`,
        }),
      };
      const report = await checkCompactionEngine({
        engine: () => createCompactionEngine({ meter: createTokenMeter(), summarizer }),
        session: newSession,
      });
      expect(report).toEqual({
        ok: true,
        passed: compactionEngineConformanceCases.length,
        failed: [],
      });
    },
    CASE_TIMEOUT,
  );

  it(
    'reports an engine that folds the whole surface, throws on write errors and takes any window',
    async () => {
      // Replaces every surface event with one note, whatever the window; errors escape.
      const broken: CompactionEngine = {
        specificationVersion: 1,
        async compact({ session, reason }) {
          if (reason === 'pressure') return { status: 'not-needed' };
          const surface = session.surface();
          const checkpoint = session.append(
            'user/message',
            { content: 'Earlier work was summarised.', source: 'compact-checkpoint' },
            {
              surfaceOp: {
                op: 'replace',
                start: surface[0] as number,
                end: surface[surface.length - 1] as number,
              },
            },
          );
          return { status: 'compacted', compactionId: checkpoint.seq };
        },
      };
      const report = await checkCompactionEngine({ engine: () => broken, session: newSession });
      expect(failures(report)).toEqual({
        'keeps the latest step on the surface as it was': expect.stringMatching(
          /^after compact\(\): the latest step's call and result changed: expected \[\{"role":"assistant".*, got \[\{"role":"user","content":"Earlier work was summarised\."/,
        ),
        "returns 'failed' and leaves the surface as it was when the replace cannot be written":
          "compact() when the log refuses the replace: expected status 'failed', but it threw Error: kit: the log refused the write",
        'rejects a context window that is not a positive number of tokens':
          'compact({ contextWindow: 0 }): expected an error (a caller mistake), got status "compacted"',
      });
    },
    CASE_TIMEOUT,
  );
});
