// Pause of the step that crosses the hard mark: background mode (candidate prepared above the
// soft mark while the agent keeps working) versus synchronous compaction, with the same
// summariser (fixed 1 s latency, like a model call). Target: background ≤ 10 % of synchronous.
import type { SessionLog, Summarizer } from '@spine/protocol';
import { createCompactionEngine } from '../src/engine.js';
import { createTokenMeter } from '../src/token-meter.js';
import { filler, newSession, say, toolStep } from '../test/history.js';

const WINDOW = 16_000;
const SUMMARY_MS = 1000;
const STEP_MS = 150;
const thresholds = { soft: 0.6, high: 0.8, low: 0.45 };

const summarizer: Summarizer = {
  specificationVersion: 1,
  async summarize(input) {
    await new Promise((resolve) => setTimeout(resolve, SUMMARY_MS));
    return {
      summary: `### Primary Request and Intent\n${input.messages.length} messages\n### Files and Code\n-\n### Errors and Fixes\n-\n### Next Step\n-\n### Critical Context\n-`,
    };
  },
};

function step(session: SessionLog, index: number): void {
  toolStep(
    session,
    { id: `c${index}`, name: 'read_file', args: { path: `src/f${index}.ts` } },
    filler(120, index),
    {
      turn: 1,
      step: index,
    },
  );
}

/** Runs steps with a pre-step pressure check until one compacts; returns that step's pause. */
async function run(
  background: boolean,
): Promise<{ pauseMs: number; otherMaxMs: number; mode: string }> {
  const engine = createCompactionEngine({
    meter: createTokenMeter(),
    summarizer,
    thresholds,
    background,
  });
  const session = await newSession();
  say(session, 'Refactor the loader. Never delete fixtures.', { turn: 1 });
  let otherMax = 0;
  for (let index = 1; index < 500; index++) {
    step(session, index);
    const start = performance.now();
    const outcome = await engine.compact({
      session,
      reason: 'pressure',
      contextWindow: WINDOW,
      system: 'S',
      tools: [],
    });
    const pause = performance.now() - start;
    if (outcome.status === 'compacted') {
      const startEvent = session.events().find((event) => event.type === 'compaction/start');
      const mode = (startEvent?.body as { mode?: string } | undefined)?.mode ?? 'unknown';
      return { pauseMs: pause, otherMaxMs: otherMax, mode };
    }
    if (outcome.status !== 'not-needed')
      throw new Error(`unexpected ${outcome.status}: ${outcome.message}`);
    otherMax = Math.max(otherMax, pause);
    // The model call of the step: the agent is busy, the background candidate is being written.
    await new Promise((resolve) => setTimeout(resolve, STEP_MS));
  }
  throw new Error('never reached the hard mark');
}

async function main(): Promise<void> {
  const sync = await run(false);
  console.log(
    `synchronous: pause ${sync.pauseMs.toFixed(1)} ms at the hard mark (mode ${sync.mode})`,
  );
  const background = await run(true);
  console.log(
    `background: pause ${background.pauseMs.toFixed(1)} ms at the hard mark (mode ${background.mode}); max other pre-step pause ${background.otherMaxMs.toFixed(1)} ms`,
  );
  const ratio = background.pauseMs / sync.pauseMs;
  console.log(`ratio background / synchronous: ${(ratio * 100).toFixed(2)} % (target ≤ 10 %)`);
  console.log(
    JSON.stringify({
      bench: 'compaction/background',
      summarizerMs: SUMMARY_MS,
      syncPauseMs: Number(sync.pauseMs.toFixed(2)),
      backgroundPauseMs: Number(background.pauseMs.toFixed(2)),
      backgroundMode: background.mode,
      maxOtherPauseMs: Number(background.otherMaxMs.toFixed(2)),
      ratio: Number(ratio.toFixed(4)),
      pass: ratio <= 0.1 && background.mode === 'background',
    }),
  );
}

await main();
