// The ToolScheduler conformance cases: each runs a batch of calls of the kit's own tools.
import type {
  AnyToolDefinition,
  ApprovalRequest,
  ToolCallPart,
  ToolResultBody,
  ToolRunEvent,
  ToolRunOptions,
  ToolScheduler,
} from '@spine/protocol';
import { type ConformanceCase, ConformanceFailure, describeError, ensure, show } from './kit.js';
import { kitTools, type ToolProbe } from './scheduler-tools.js';

/** What the ToolScheduler kit needs: a way to make the scheduler under test for given tools. */
export interface ToolSchedulerFixture {
  /**
   * Makes a fresh scheduler that runs exactly `tools` (the kit's `kit_*` tools). It must ask
   * `ToolRunOptions.approve` before running a tool whose `permissions.executes` is true, run
   * other calls without asking, and may run `isConcurrencySafe` calls at the same time.
   */
  scheduler(tools: readonly AnyToolDefinition[]): ToolScheduler | Promise<ToolScheduler>;
}

type Outcome = NonNullable<ToolResultBody['outcome']>;

interface Batch {
  results: ToolResultBody[];
  events: ToolRunEvent[];
  probe: ToolProbe;
  asked: ApprovalRequest[];
}

function call(id: string, name: string, args: unknown): ToolCallPart {
  return {
    type: 'tool-call',
    id,
    name,
    arguments: typeof args === 'string' ? args : JSON.stringify(args),
  };
}

async function runBatch(
  fixture: ToolSchedulerFixture,
  calls: ToolCallPart[],
  what: string,
  options: Omit<ToolRunOptions, 'onEvent'> & { onEvent?: (event: ToolRunEvent) => void } = {},
): Promise<Batch> {
  const { tools, probe } = kitTools();
  const events: ToolRunEvent[] = [];
  const asked: ApprovalRequest[] = [];
  let scheduler: ToolScheduler;
  try {
    scheduler = await fixture.scheduler(tools);
  } catch (error) {
    throw new ConformanceFailure(
      `${what}: making the scheduler failed: it ${describeError(error)}`,
    );
  }
  const approve = options.approve;
  let results: ToolResultBody[];
  try {
    results = await scheduler.run(calls, {
      ...options,
      ...(approve && {
        approve: (request: ApprovalRequest, o: { signal?: AbortSignal }) => {
          asked.push(request);
          return approve(request, o);
        },
      }),
      onEvent: (event) => {
        events.push(event);
        options.onEvent?.(event);
      },
    });
  } catch (error) {
    throw new ConformanceFailure(
      `${what}: expected run() to resolve with error results, but it ${describeError(error)}`,
    );
  }
  const ids = results.map((result) => result.toolCallId);
  const want = calls.map((c) => c.id);
  ensure(
    JSON.stringify(ids) === JSON.stringify(want),
    `${what}: expected one result per call in call order ${show(want)}, got ${show(ids)}`,
  );
  for (const [i, result] of results.entries()) {
    ensure(
      result.toolName === calls[i]?.name,
      `${what}: result ${i} names tool ${show(result.toolName)}, expected ${show(calls[i]?.name)}`,
    );
  }
  return { results, events, probe, asked };
}

function expectError(result: ToolResultBody | undefined, outcome: Outcome, what: string): void {
  ensure(result !== undefined, `${what}: expected a result`);
  ensure(
    result.isError,
    `${what}: expected an error result (isError true), got ${show(result.content)}`,
  );
  ensure(
    result.outcome === undefined || result.outcome === outcome,
    `${what}: expected outcome ${show(outcome)} (or none), got ${show(result.outcome)}`,
  );
}

/** The ToolScheduler cases, in run order. */
export const toolSchedulerCases: readonly ConformanceCase<ToolSchedulerFixture>[] = [
  {
    name: 'commits results and result events in call order, whatever order the calls finish in',
    run: async (fixture) => {
      const what = 'ordering';
      const calls = [
        call('c1', 'kit_echo', { text: 'slow', delayMs: 150 }),
        call('c2', 'kit_echo', { text: 'fast', delayMs: 0 }),
        call('c3', 'kit_echo', { text: 'middle', delayMs: 60 }),
      ];
      const { results, events } = await runBatch(fixture, calls, what);
      const contents = results.map((r) => r.content);
      const want = ['echo: slow', 'echo: fast', 'echo: middle'];
      ensure(
        JSON.stringify(contents) === JSON.stringify(want),
        `${what}: expected contents ${show(want)}, got ${show(contents)}`,
      );
      ensure(!results.some((r) => r.isError), `${what}: expected no error results`);
      const order = events.flatMap((e) => (e.type === 'result' ? [e.body.toolCallId] : []));
      ensure(
        JSON.stringify(order) === '["c1","c2","c3"]',
        `${what}: expected result events for c1, c2, c3 in that order, got ${show(order)}`,
      );
      for (const id of ['c1', 'c2', 'c3']) {
        const started = events.findIndex((e) => e.type === 'started' && e.toolCallId === id);
        const done = events.findIndex((e) => e.type === 'result' && e.body.toolCallId === id);
        ensure(
          started >= 0 && started < done,
          `${what}: expected a started event for ${id} before its result (started at ${started}, result at ${done})`,
        );
      }
    },
  },
  {
    name: 'runs concurrency-safe calls at the same time',
    run: async (fixture) => {
      const calls = [1, 2, 3].map((n) => call(`s${n}`, 'kit_echo', { text: `${n}`, delayMs: 300 }));
      const { probe } = await runBatch(fixture, calls, 'concurrency');
      ensure(
        probe.maxActive >= 2,
        `concurrency: expected concurrency-safe calls to overlap, but at most ${probe.maxActive} ran at once`,
      );
    },
  },
  {
    name: 'runs calls that are not concurrency-safe one at a time',
    run: async (fixture) => {
      const calls = [1, 2, 3].map((n) =>
        call(`u${n}`, 'kit_serial', { text: `${n}`, delayMs: 40 }),
      );
      const { probe } = await runBatch(fixture, calls, 'serial calls');
      ensure(
        probe.maxActive === 1,
        `serial calls: expected unsafe calls to run one at a time, but ${probe.maxActive} ran at once`,
      );
    },
  },
  {
    name: 'on abort, stops running calls through their signal and still gives every call a result',
    run: async (fixture) => {
      const what = 'abort';
      const controller = new AbortController();
      const calls = [call('w1', 'kit_wait', {}), call('w2', 'kit_serial', { text: 'later' })];
      const { results, probe } = await runBatch(fixture, calls, what, {
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === 'started' && event.toolCallId === 'w1') {
            setTimeout(() => controller.abort(), 20);
          }
        },
      });
      ensure(
        probe.sawAbort.includes('w1'),
        `${what}: expected the running call's signal to fire, but the tool never saw it`,
      );
      for (const result of results) {
        ensure(
          result.isError,
          `${what}: expected ${result.toolCallId} to be an error result after the abort, got ${show(result.content)}`,
        );
      }
      ensure(
        results[0]?.outcome === undefined || results[0].outcome === 'aborted',
        `${what}: expected the running call's outcome "aborted", got ${show(results[0]?.outcome)}`,
      );
    },
  },
  {
    name: 'answers a call of an unknown tool with an error result',
    run: async (fixture) => {
      const calls = [call('n1', 'kit_missing', {}), call('n2', 'kit_echo', { text: 'still runs' })];
      const { results } = await runBatch(fixture, calls, 'unknown tool');
      expectError(results[0], 'not-found', 'unknown tool');
      ensure(
        results[1]?.content === 'echo: still runs' && !results[1].isError,
        `unknown tool: expected the next call to run normally, got ${show(results[1])}`,
      );
    },
  },
  {
    name: 'answers invalid arguments with an error result without running the tool',
    run: async (fixture) => {
      const calls = [
        call('i1', 'kit_echo', { text: 5 }),
        call('i2', 'kit_echo', '{"text": "unterminated'),
        call('i3', 'kit_echo', { text: 'x', extra: true }),
      ];
      const { results, probe } = await runBatch(fixture, calls, 'invalid arguments');
      for (const [i, result] of results.entries()) {
        expectError(result, 'invalid', `invalid arguments (call ${calls[i]?.id})`);
      }
      ensure(
        probe.executed.length === 0,
        `invalid arguments: expected the tool never to run, but it ran for ${show(probe.executed)}`,
      );
    },
  },
  {
    name: 'asks before a tool that executes and does not run it when the answer is deny',
    run: async (fixture) => {
      const what = 'approval denial';
      const { results, probe, asked, events } = await runBatch(
        fixture,
        [call('a1', 'kit_exec', {})],
        what,
        { approve: async () => 'deny' },
      );
      ensure(
        asked.length === 1 && asked[0]?.toolCallId === 'a1' && asked[0].toolName === 'kit_exec',
        `${what}: expected approve() to be asked once about a1/kit_exec, got ${show(asked)}`,
      );
      expectError(results[0], 'denied', what);
      ensure(
        probe.executed.length === 0,
        `${what}: expected the denied tool not to run, but it ran`,
      );
      const decision = events.find((e) => e.type === 'approval');
      ensure(
        decision?.type === 'approval' && decision.body.decision === 'deny',
        `${what}: expected an approval event with decision "deny", got ${show(decision)}`,
      );
    },
  },
  {
    name: 'turns a tool that throws into an error result the model can read',
    run: async (fixture) => {
      const what = 'throwing tool';
      const calls = [call('t1', 'kit_explode', {}), call('t2', 'kit_echo', { text: 'after' })];
      const { results } = await runBatch(fixture, calls, what);
      expectError(results[0], 'error', what);
      ensure(
        results[0]?.content.includes('kaboom from kit_explode'),
        `${what}: expected the error result to carry the thrown message, got ${show(results[0]?.content)}`,
      );
      ensure(
        results[1]?.content === 'echo: after',
        `${what}: expected the next call to run normally, got ${show(results[1])}`,
      );
    },
  },
];
