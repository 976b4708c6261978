// Cost of loop detection per step in a long session: one turn of ~21,600 events (worst case:
// the detector's per-turn state only grows within a turn), built like the agent loop writes them
// (step/start, request/header, assistant/message with ~120 words of text and two tool calls,
// assistant/attempt, tool/started and tool/result of ~2 KB each, step/end). The figure is the
// median over rounds of the mean time to observe one step's events, for the steps after the log
// passed 10,000 events (1,300 steps), in CPU time of the process (user + system), so that a busy
// machine (other processes on the same cores) does not count; wall time is printed beside it.
// Issue 38's target: ≤ 50 µs per step at 10k events.
import { loadavg } from 'node:os';
import type { SessionEvent } from '@spine/protocol';
import { LoopDetector } from '../src/index.js';

const STEPS = 2_400;
const WORDS =
  'the parser reads a token and checks whether the next one closes the list or opens another nested value in the tree'.split(
    ' ',
  );

function sentence(seed: number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++)
    out.push(`${WORDS[(seed * 7 + i * 13) % WORDS.length]}${(seed + i) % 97}`);
  return out.join(' ');
}

function buildTurn(): { events: SessionEvent[]; stepStarts: number[] } {
  const events: SessionEvent[] = [];
  const stepStarts: number[] = [];
  const add = (type: string, body: unknown, step: number): void => {
    events.push({
      seq: events.length + 1,
      type,
      at: '2026-12-06T00:00:00.000Z',
      turn: 1,
      step,
      body,
    });
  };
  add('turn/start', {}, 0);
  add('user/message', { content: 'refactor the parser', source: 'user' }, 0);
  const output = 'x'.repeat(2_000);
  for (let step = 1; step <= STEPS; step++) {
    stepStarts.push(events.length);
    add('step/start', {}, step);
    add('request/header', { hash: `sha256:${step}` }, step);
    const calls = [0, 1].map((i) => ({
      type: 'tool-call',
      id: `call_${step}_${i}`,
      name: i ? 'grep' : 'read',
      arguments: JSON.stringify({ path: `src/file-${step}.ts`, pattern: `name${i}`, limit: 200 }),
    }));
    add(
      'assistant/message',
      {
        content: [{ type: 'text', text: sentence(step, 120) }, ...calls],
        finishReason: 'tool-calls',
      },
      step,
    );
    add('assistant/attempt', { request: events.length - 1, attempt: 1, outcome: 'ok' }, step);
    for (const call of calls)
      add(
        'tool/started',
        { toolCallId: call.id, toolName: call.name, arguments: call.arguments },
        step,
      );
    for (const call of calls) {
      add(
        'tool/result',
        {
          toolCallId: call.id,
          toolName: call.name,
          content: `${step} ${call.name} ${output}`,
          isError: false,
        },
        step,
      );
    }
    add('step/end', { finishReason: 'tool-calls', toolCalls: 2 }, step);
  }
  return { events, stepStarts };
}

const { events, stepStarts } = buildTurn();
const firstMeasured = stepStarts.findIndex((start) => start >= 10_000);
const rounds: number[] = [];
const wall: number[] = [];
for (let round = 0; round < 7; round++) {
  const detector = new LoopDetector();
  let found = 0;
  for (let i = 0; i < (stepStarts[firstMeasured] as number); i++) {
    if (detector.observe(events[i] as SessionEvent)) found++;
  }
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = stepStarts[firstMeasured] as number; i < events.length; i++) {
    if (detector.observe(events[i] as SessionEvent)) found++;
  }
  const used = process.cpuUsage(cpu);
  const elapsed = performance.now() - started;
  const steps = STEPS - firstMeasured;
  const perStepUs = (used.user + used.system) / steps;
  wall.push((elapsed * 1000) / steps);
  if (found > 0) throw new Error(`false detection in the benchmark session (${found})`);
  rounds.push(perStepUs);
  console.log(
    `round ${round + 1}/7: ${perStepUs.toFixed(1)} µs CPU per step (${wall.at(-1)?.toFixed(1)} µs wall)`,
  );
}
const medianOf = (values: number[]): number =>
  values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const median = medianOf(rounds);
console.log(
  JSON.stringify({
    bench: 'agent-loop/loop-detector',
    events: events.length,
    measuredFromEvent: stepStarts[firstMeasured],
    perStepUs: +median.toFixed(1),
    wallPerStepUs: +medianOf(wall).toFixed(1),
    loadAverage: +(loadavg()[0] ?? 0).toFixed(1),
    target: 'perStepUs <= 50',
    pass: median <= 50,
  }),
);
