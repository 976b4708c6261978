// CompactionEngine conformance: not-needed, one committed replace, paired tool calls, the latest
// step kept, failures that leave the surface as it was, and caller mistakes.
import type {
  CompactionContext,
  CompactionEngine,
  CompactionOutcome,
  Message,
  SessionLog,
} from '@spine/protocol';
import { fillSession } from './history.js';
import { type ConformanceCase, describeError, ensure, show, works } from './kit.js';

/** What the CompactionEngine cases get: factories for fresh engines and fresh, empty sessions. */
export interface CompactionEngineFixture {
  /** A fresh engine with automatic compaction on and no state for any session. */
  engine: () => CompactionEngine | Promise<CompactionEngine>;
  /** A fresh, empty session (an in-memory `Session` from `@spine/session-log` will do). */
  session: () => SessionLog | Promise<SessionLog>;
}

const BASE = { system: 'You are a coding agent.', tools: [] } as const;

/** A long session: 40 tool steps of about 120 words each (roughly 8,000 tokens). */
async function longSession(fixture: CompactionEngineFixture): Promise<SessionLog> {
  return fillSession(await fixture.session(), 40);
}

function snapshot(session: SessionLog) {
  return {
    surface: JSON.stringify(session.surface()),
    generation: session.replaceGeneration,
    messages: JSON.stringify(session.deriveMessages().messages),
  };
}

async function compact(engine: CompactionEngine, context: CompactionContext, what: string) {
  const outcome = await works(() => engine.compact(context), what);
  ensure(
    typeof outcome === 'object' && outcome !== null && typeof outcome.status === 'string',
    `${what}: expected an outcome with a status, got ${show(outcome)}`,
  );
  return outcome as CompactionOutcome;
}

function unpaired(messages: readonly Message[]): string | undefined {
  const open = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool-call') open.add(part.id);
    } else if (message.role === 'tool') {
      if (!open.delete(message.toolCallId)) {
        return `message ${index} is the result of tool call ${message.toolCallId}, whose call is not on the surface before it`;
      }
    }
  }
  const [left] = open;
  return left === undefined ? undefined : `tool call ${left} has no result on the surface`;
}

/** A session whose appends with a surface `replace` throw, as a full disk or a closed log would. */
function refusingReplace(session: SessionLog): SessionLog {
  return new Proxy(session, {
    get(target, property) {
      if (property === 'append') {
        return (type: string, body: unknown, options?: Parameters<SessionLog['append']>[2]) => {
          if (options?.surfaceOp?.op === 'replace')
            throw new Error('kit: the log refused the write');
          return target.append(type, body, options);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The CompactionEngine cases, in a stable order. */
export const compactionEngineCases: readonly ConformanceCase<CompactionEngineFixture>[] = [
  {
    name: 'declares specificationVersion 1',
    async run(fixture) {
      const engine = await fixture.engine();
      ensure(
        engine.specificationVersion === 1,
        `engine.specificationVersion: expected 1, got ${show(engine.specificationVersion)}`,
      );
    },
  },
  {
    name: 'answers pressure far below the window with not-needed and leaves the surface alone',
    async run(fixture) {
      const engine = await fixture.engine();
      const session = fillSession(await fixture.session(), 2);
      const before = snapshot(session);
      const outcome = await compact(
        engine,
        { ...BASE, session, reason: 'pressure', contextWindow: 1_000_000 },
        "compact({ reason: 'pressure' }) at 0.1 % of the window",
      );
      ensure(
        outcome.status === 'not-needed',
        `compact() under no pressure: expected status 'not-needed', got ${show(outcome.status)}`,
      );
      ensure(
        JSON.stringify(snapshot(session)) === JSON.stringify(before),
        'compact() under no pressure changed the surface',
      );
    },
  },
  {
    name: 'compacts a long session on request with one replace, less context, and raw events untouched',
    async run(fixture) {
      const engine = await fixture.engine();
      const session = await longSession(fixture);
      const raw = JSON.stringify(session.events());
      const lastSeq = session.lastSeq;
      const { generation, surface } = snapshot(session);
      const outcome = await compact(
        engine,
        { ...BASE, session, reason: 'manual', contextWindow: 6000 },
        "compact({ reason: 'manual' })",
      );
      ensure(
        outcome.status === 'compacted',
        `compact() of a 40-step session: expected status 'compacted', got ${show(outcome.status)} (${show(outcome.message)})`,
      );
      ensure(
        session.replaceGeneration === generation + 1,
        `compact(): expected exactly one surface replace, but the generation went from ${generation} to ${session.replaceGeneration}`,
      );
      const after = JSON.parse(surface) as number[];
      ensure(
        session.surface().length < after.length,
        `compact(): expected a shorter surface than ${after.length} events, got ${session.surface().length}`,
      );
      ensure(
        JSON.stringify(session.events({ to: lastSeq })) === raw,
        'compact() changed events that were in the log before it (the log is append-only)',
      );
      if (outcome.tokensBefore !== undefined && outcome.tokensAfter !== undefined) {
        ensure(
          outcome.tokensAfter < outcome.tokensBefore,
          `compact(): tokensAfter ${outcome.tokensAfter} is not below tokensBefore ${outcome.tokensBefore}`,
        );
      }
    },
  },
  {
    name: 'keeps every tool call and its result together on the surface',
    async run(fixture) {
      const engine = await fixture.engine();
      const session = await longSession(fixture);
      await compact(
        engine,
        { ...BASE, session, reason: 'manual', contextWindow: 6000 },
        "compact({ reason: 'manual' })",
      );
      const problem = unpaired(session.deriveMessages().messages);
      ensure(problem === undefined, `after compact(): ${problem}`);
    },
  },
  {
    name: 'keeps the latest step on the surface as it was',
    async run(fixture) {
      const engine = await fixture.engine();
      const session = await longSession(fixture);
      const last = JSON.stringify(session.deriveMessages().messages.slice(-2));
      await compact(
        engine,
        { ...BASE, session, reason: 'manual', contextWindow: 6000 },
        "compact({ reason: 'manual' })",
      );
      const now = JSON.stringify(session.deriveMessages().messages.slice(-2));
      ensure(
        now === last,
        `after compact(): the latest step's call and result changed: expected ${show(JSON.parse(last))}, got ${show(JSON.parse(now))}`,
      );
    },
  },
  {
    name: "returns 'failed' and leaves the surface as it was when the replace cannot be written",
    async run(fixture) {
      const engine = await fixture.engine();
      const inner = await longSession(fixture);
      const session = refusingReplace(inner);
      const before = snapshot(inner);
      let outcome: CompactionOutcome;
      try {
        outcome = await engine.compact({ ...BASE, session, reason: 'manual', contextWindow: 6000 });
      } catch (error) {
        ensure(
          false,
          `compact() when the log refuses the replace: expected status 'failed', but it ${describeError(error)}`,
        );
      }
      ensure(
        outcome.status === 'failed',
        `compact() when the log refuses the replace: expected status 'failed', got ${show(outcome.status)}`,
      );
      ensure(
        JSON.stringify(snapshot(inner)) === JSON.stringify(before),
        'compact() failed but the surface changed (a failed compaction must leave it exactly as it was)',
      );
    },
  },
  {
    name: 'rejects a context window that is not a positive number of tokens',
    async run(fixture) {
      const engine = await fixture.engine();
      const session = await longSession(fixture);
      for (const contextWindow of [0, -1, Number.NaN]) {
        let outcome: CompactionOutcome | undefined;
        try {
          outcome = await engine.compact({ ...BASE, session, reason: 'manual', contextWindow });
        } catch {
          continue;
        }
        ensure(
          false,
          `compact({ contextWindow: ${contextWindow} }): expected an error (a caller mistake), got status ${show(outcome?.status)}`,
        );
      }
    },
  },
];
