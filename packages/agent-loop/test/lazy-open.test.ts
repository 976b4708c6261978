// A session opened with `history: 'lazy'` (only the surface and the events since its snapshot in
// memory) must drive the agent loop and the compaction engine exactly as a fully read one: the
// same requests byte for byte, the same inbox, runtime context, recovery answers and breaker.
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  compactionProjections,
  createCompactionEngine,
  createTokenMeter,
  type SpineCompactionEngine,
  type SpineTokenMeter,
} from '@spine/compaction';
import { createOpenAICompatibleModel, createRetryPolicy } from '@spine/llm';
import type { SessionEvent, ToolDefinition } from '@spine/protocol';
import { createJsonlStore, Session, verifyJsonlLog } from '@spine/session-log';
import { createScriptedModelServer, type ScriptedReply } from '@spine/test-utils';
import { createToolRuntime, defineTool } from '@spine/tool-runtime';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Agent,
  agentLoopProjections,
  createAgent,
  PartialHistoryError,
  type ReplayReport,
  replay,
  replayStream,
  SystemPrompt,
} from '../src/index.js';

const cleanups: Array<() => Promise<void> | void> = [];
/** Lazy opens that held only part of the log (the case under test). */
let partialOpens = 0;
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A failure whose output (under the runtime's 30,000-character cap) is too long for the window:
 * the loop cuts it to fit, and the error line in the middle is only in the whole output.
 */
const BIG_OUTPUT = [
  ...Array.from(
    { length: 1050 },
    (_, k) => `${(k * 7919).toString(16)}:${(k * 104729).toString(36)}`,
  ),
  'Error: planted failure in src/deep.ts:42',
  ...Array.from(
    { length: 1050 },
    (_, k) => `${(k * 15485863).toString(16)}:${(k * 31).toString(36)}`,
  ),
].join('\n');

const echoTool = defineTool({
  name: 'echo',
  description: 'Returns text (or fails at length).',
  parameters: z.object({ text: z.string(), big: z.boolean().optional() }),
  isConcurrencySafe: true,
  async execute(args) {
    return args.big ? { content: BIG_OUTPUT, isError: true } : { content: args.text };
  },
}) as unknown as ToolDefinition<never>;

/** A tool that never finishes on its own: the process "crashes" while it runs. */
const hangTool = defineTool({
  name: 'hang',
  description: 'Waits until aborted.',
  parameters: z.object({}),
  async execute(_args, context) {
    await new Promise<void>((_resolve, reject) => {
      context.signal.addEventListener('abort', () => reject(new Error('aborted')));
    });
    return { content: 'unreachable' };
  },
}) as unknown as ToolDefinition<never>;

type Action =
  | { kind: 'turn'; calls: number; text: string; big: boolean }
  | { kind: 'enqueue'; queue: 'next-turn' | 'next-step'; text: string }
  | { kind: 'compact' }
  | { kind: 'snapshot' }
  | { kind: 'context'; branch: string };

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('turn' as const),
      calls: fc.nat(3),
      text: fc.string({ maxLength: 40 }),
      big: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      queue: fc.constantFrom('next-turn' as const, 'next-step' as const),
      text: fc.string({ maxLength: 20 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('compact' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('snapshot' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('context' as const),
      branch: fc.constantFrom('main', 'fix', 'dev'),
    }),
  },
);

interface Scenario {
  actions: Action[];
  crash: boolean;
  registered: boolean;
  autoSnapshots: false | number;
}

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  actions: fc.array(actionArb, { minLength: 1, maxLength: 8 }),
  crash: fc.boolean(),
  registered: fc.boolean(),
  autoSnapshots: fc.oneof(fc.constant(false as const), fc.integer({ min: 3, max: 40 })),
});

/** An agent over `session` whose model answers from `plan` (then `{ text: 'done' }`). */
async function agentOver(
  session: Session,
  workspace: string,
  plan: ScriptedReply[],
  branch: { value: string },
) {
  const server = await createScriptedModelServer({
    replies: () => plan.shift() ?? { text: 'done' },
  });
  cleanups.push(() => server.close());
  const prompt = new SystemPrompt('You are a careful coding agent.');
  prompt.register({ id: 'branch', contexts: () => ({ cwd: workspace, branch: branch.value }) });
  const meter = createTokenMeter();
  const compaction = createCompactionEngine({ meter, auto: false });
  const agent = createAgent({
    session,
    model: createOpenAICompatibleModel({
      baseUrl: server.baseUrl,
      apiKey: 'test-key',
      provider: 'deepseek',
      idleTimeoutMs: 60_000,
    }),
    modelId: 'deepseek-v4-flash',
    tools: createToolRuntime({
      cwd: workspace,
      tools: [echoTool, hangTool],
      approval: 'never-ask',
      sandboxBackend: null,
    }),
    systemPrompt: prompt,
    retryPolicy: createRetryPolicy({ baseDelayMs: 5, maxDelayMs: 20, jitter: 0 }),
    compaction,
    meter,
    contextWindow: 20_000,
    maxOutputTokens: 2_000,
  });
  return { agent, server, compaction, meter, prompt };
}

/**
 * What an event says, without the time of its append, a tool's measured duration and the chain
 * value a request recorded (the lines hold their times, so the chain differs between two runs;
 * verify checks it).
 */
function content(event: SessionEvent): unknown {
  const { at: _at, ...rest } = event;
  const meta = (event.body as { meta?: { durationMs?: number } }).meta;
  if (meta?.durationMs !== undefined) {
    // How long a tool ran is measured, not derived from the log.
    return { ...rest, body: { ...(event.body as object), meta: { ...meta, durationMs: 0 } } };
  }
  if (event.type !== 'request/header') return rest;
  const { chain: _chain, ...body } = event.body as { chain?: string };
  return { ...rest, body };
}

/** Events from `fromSeq` on, held or not (a lazy session keeps off-surface ones in the store). */
async function eventsFrom(
  session: Session,
  fromSeq: number,
): Promise<Array<SessionEvent<{ chain?: unknown }>>> {
  await session.flush();
  const events: Array<SessionEvent<{ chain?: unknown }>> = [];
  for await (const event of session.readEvents({ fromSeq }))
    events.push(event as SessionEvent<{ chain?: unknown }>);
  return events;
}

function copySession(from: string, id: string): string {
  const to = mkdtempSync(join(tmpdir(), 'spine-lazy-copy-'));
  cleanups.push(() => rmSync(to, { recursive: true, force: true }));
  for (const name of readdirSync(from)) {
    if (name.startsWith(id) && !name.endsWith('.lock') && !name.endsWith('.tmp')) {
      copyFileSync(join(from, name), join(to, name));
    }
  }
  return to;
}

/** Builds a session from `scenario` with a live agent; returns where its files were copied. */
async function record(scenario: Scenario, workspace: string) {
  const dir = mkdtempSync(join(tmpdir(), 'spine-lazy-live-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const session = await Session.create({
    store: createJsonlStore({ dir, fsync: 'never' }),
    cwd: workspace,
    snapshots: scenario.autoSnapshots === false ? false : { afterEvents: scenario.autoSnapshots },
    ...(scenario.registered
      ? { projections: [...agentLoopProjections, ...compactionProjections] }
      : {}),
  });
  const plan: ScriptedReply[] = [];
  const branch = { value: 'main' };
  const { agent, server, compaction, meter, prompt } = await agentOver(
    session,
    workspace,
    plan,
    branch,
  );
  let big = false;
  for (const action of scenario.actions) {
    if (action.kind === 'turn') {
      if (action.big && !big) {
        // One failure cut to fit (two would not fit the window together).
        big = true;
        plan.push({
          toolCalls: [{ id: 'call_0', name: 'echo', arguments: '{"text":"","big":true}' }],
        });
      }
      for (let i = 0; i < action.calls; i++) {
        plan.push({
          toolCalls: [
            {
              // Ids repeat across turns, as some providers send them: the loop renames them.
              id: `call_${i}`,
              name: 'echo',
              arguments: JSON.stringify({ text: `${action.text} ${i}`.repeat(20) }),
            },
          ],
        });
      }
      plan.push({ text: `answer: ${action.text}` });
      await agent.run(action.text);
      await session.checkpoint?.();
    } else if (action.kind === 'enqueue') agent.enqueue(action.text, action.queue);
    else if (action.kind === 'compact') await agent.compact();
    else if (action.kind === 'snapshot') await session.snapshot();
    else branch.value = action.branch;
  }
  let aborter: AbortController | undefined;
  let running: Promise<unknown> | undefined;
  if (scenario.crash) {
    // A call that reached tool/started and never reported: the files are copied mid-tool.
    plan.push({
      toolCalls: [
        { id: 'hang-1', name: 'hang', arguments: '{}' },
        { id: 'echo-2', name: 'echo', arguments: '{"text":"x"}' },
      ],
    });
    aborter = new AbortController();
    const started = new Promise<void>((resolve) => {
      const off = session.subscribe((event) => {
        if (
          event.type === 'tool/started' &&
          (event.body as { toolCallId?: string }).toolCallId === 'hang-1'
        ) {
          off();
          resolve();
        }
      });
    });
    running = agent.run('crash here', { signal: aborter.signal }).catch(() => undefined);
    await started;
  }
  await session.flush();
  const lastSeq = session.lastSeq;
  const copies = { full: copySession(dir, session.id), lazy: copySession(dir, session.id) };
  // Without a crash the live agent goes on too: its state was never read back from the log, so
  // it is the reference the reopened sessions must match.
  let live: Continued | undefined;
  if (!scenario.crash) {
    const start = server.requests.length;
    plan.push(...continuation());
    const before = stateOf(agent, compaction, meter, prompt, session);
    await agent.resume();
    await agent.run('one more step');
    await agent.compact();
    const bodies = server.requests.slice(start).map((request) => request.raw);
    live = { recovered: [], before, bodies, appended: await eventsFrom(session, lastSeq + 1) };
  }
  aborter?.abort();
  await running;
  await session.close();
  return { id: session.id, lastSeq, copies, branch: branch.value, live };
}

/** Body fields that are the token meter's estimates. */
const ESTIMATES = ['estimatedTokens', 'tokensBefore', 'tokensAfter', 'projectedTokens'];

/** What the model answers after reopening: a tool call whose id was used before, then text. */
function continuation(): ScriptedReply[] {
  return [{ toolCalls: [{ id: 'call_0', name: 'echo', arguments: '{"text":"again"}' }] }];
}

/** What a continuation saw and sent. */
interface Continued {
  recovered: SessionEvent[];
  before: ReturnType<typeof stateOf>;
  bodies: string[];
  appended: Array<SessionEvent<{ chain?: unknown }>>;
  replayed?: ReplayReport;
}

/** The loop and compaction state an agent restored (or kept). */
function stateOf(
  agent: Agent,
  compaction: SpineCompactionEngine,
  meter: SpineTokenMeter,
  prompt: SystemPrompt,
  session: Session,
) {
  return {
    usage: agent.usage,
    interrupted: agent.interruptedTurn,
    nextTurn: agent.queued('next-turn'),
    nextStep: agent.queued('next-step'),
    breaker: compaction.state(session),
    tokens: meter.measure({ session, ...prompt.assemble({ tools: [] }) }).tokens,
  };
}

/** Opens a copy, runs one more turn (after resuming) and reports what the model was sent. */
async function continueFrom(
  dir: string,
  id: string,
  lazy: boolean,
  workspace: string,
  lastSeq: number,
  branchValue: string,
) {
  const session = await Session.open({
    store: createJsonlStore({ dir, fsync: 'never' }),
    id,
    ...(lazy
      ? {
          history: 'lazy' as const,
          projections: [...agentLoopProjections, ...compactionProjections],
        }
      : {}),
  });
  cleanups.push(() => session.close().catch(() => undefined));
  // Lazily opened, the session does not hold what is off its surface (turn/start, headers …).
  if (lazy && session.events().length < session.lastSeq) partialOpens++;
  const recovered = await eventsFrom(session, lastSeq + 1);
  const { agent, server, compaction, meter, prompt } = await agentOver(
    session,
    workspace,
    continuation(),
    { value: branchValue },
  );
  const before = stateOf(agent, compaction, meter, prompt, session);
  await agent.resume();
  await agent.run('one more step');
  // A compaction after reopening reads earlier checkpoints' facts and whole tool outputs.
  await agent.compact();
  const appended = await eventsFrom(session, lastSeq + 1);
  const verified = verifyJsonlLog(join(dir, `${id}.jsonl`));
  expect(verified.problem).toBeUndefined();
  const headers = appended.filter((event) => event.type === 'request/header');
  expect(headers.length).toBeGreaterThan(0);
  for (const event of headers) {
    expect(event.body.chain).toMatchObject({ h: expect.stringMatching(/^[0-9a-f]{32}$/) });
  }
  const bodies = server.requests.map((request) => request.raw);
  // Replay needs every event: a lazy session is refused by replay and streamed by replayStream.
  const replayed = lazy ? await replayStream(session) : replay(session);
  if (lazy && session.events().length < session.lastSeq) {
    expect(() => replay(session)).toThrow(PartialHistoryError);
  }
  expect(replayed.ok).toBe(true);
  return { recovered, before, bodies, appended, replayed } satisfies Continued;
}

describe('lazily opened sessions', () => {
  it('give the agent loop and compaction exactly the state of a full open', {
    timeout: 600_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const workspace = mkdtempSync(join(tmpdir(), 'spine-lazy-ws-'));
        cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
        const recorded = await record(scenario, workspace);
        const full = await continueFrom(
          recorded.copies.full,
          recorded.id,
          false,
          workspace,
          recorded.lastSeq,
          recorded.branch,
        );
        const lazy = await continueFrom(
          recorded.copies.lazy,
          recorded.id,
          true,
          workspace,
          recorded.lastSeq,
          recorded.branch,
        );
        expect(full.bodies.length).toBeGreaterThan(0);
        expect(lazy.recovered.map(content)).toEqual(full.recovered.map(content));
        expect(lazy.before).toEqual(full.before);
        expect(lazy.bodies).toEqual(full.bodies);
        expect(lazy.appended.map(content)).toEqual(full.appended.map(content));
        expect(lazy.replayed).toEqual(full.replayed);
        if (recorded.live) {
          // The live meter calibrated itself on the usage it saw; a reopened one starts afresh.
          expect({ ...lazy.before, tokens: 0 }).toEqual({ ...recorded.live.before, tokens: 0 });
          expect(lazy.bodies).toEqual(recorded.live.bodies);
          // Token estimates: the live meter calibrated itself on the usage it saw.
          const uncalibrated = (event: SessionEvent) => {
            const value = content(event) as { body: Record<string, unknown> };
            const body = { ...value.body };
            for (const key of ESTIMATES) delete body[key];
            return { ...value, body };
          };
          expect(lazy.appended.map(uncalibrated)).toEqual(recorded.live.appended.map(uncalibrated));
        }
        if (scenario.crash) {
          const answers = full.recovered.filter(
            (event) => (event as SessionEvent).type === 'tool/result',
          );
          expect(answers.length).toBeGreaterThan(0);
        }
        for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      }),
      { numRuns: 20 },
    );
    expect(partialOpens).toBeGreaterThanOrEqual(10);
  });

  it('carries the whole output of a cut failure into a checkpoint made after a lazy open', {
    timeout: 300_000,
  }, async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'spine-lazy-ws-'));
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
    const recorded = await record(
      {
        actions: [
          { kind: 'turn', calls: 0, text: 'run it', big: true },
          { kind: 'turn', calls: 1, text: 'again', big: false },
          { kind: 'snapshot' },
        ],
        crash: false,
        registered: true,
        autoSnapshots: false,
      },
      workspace,
    );
    const args = [workspace, recorded.lastSeq, recorded.branch] as const;
    const full = await continueFrom(recorded.copies.full, recorded.id, false, ...args);
    const lazy = await continueFrom(recorded.copies.lazy, recorded.id, true, ...args);
    const summary = (events: SessionEvent[]) =>
      JSON.stringify(events.find((event) => event.type === 'compaction/summary')?.body);
    // The error line sits in the part of the output the loop cut from the result.
    expect(summary(full.appended)).toContain('planted failure in src/deep.ts:42');
    expect(summary(lazy.appended)).toEqual(summary(full.appended));
    expect(lazy.appended.map(content)).toEqual(full.appended.map(content));
  });
});
