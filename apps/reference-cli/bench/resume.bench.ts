// `spine resume` of a 100k-event session, ready for input, against the session-log's own
// `Session.open` of the same file (target: ≤ 1.5×). "Ready" = session opened, tools, prompt,
// meter, compaction and agent wired, agent state restored from the log: what `spine resume`
// does before it reads input (the tool runtime itself is built on first use, when the first
// request needs the tool specs). Both are measured in this process, interleaved, after a
// warm-up (module loading is excluded from both).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRecordedModel } from '@spine/agent-loop';
import { defaultConfig, fixedModel, startAgentSession } from '@spine/harness';
import { createJsonlStore, Session } from '@spine/session-log';

const EVENTS = 100_000;
const RUNS = 9;
const root = mkdtempSync(join(tmpdir(), 'spine-bench-resume-'));
const sessionDir = join(root, 'sessions');
const workspace = mkdtempSync(join(root, 'ws-'));
const id = 'big';

console.log(`writing a session of ${EVENTS} events…`);
{
  const session = await Session.create({
    store: createJsonlStore({ dir: sessionDir, fsync: 'never' }),
    id,
    cwd: workspace,
    model: 'deepseek/deepseek-v4-flash',
  });
  let turn = 0;
  while (session.lastSeq < EVENTS - 4) {
    turn++;
    session.append('turn/start', {}, { turn, step: 0 });
    session.append(
      'user/message',
      { content: `Please look at file ${turn}.`, source: 'user' },
      { turn, step: 0, surfaceOp: { op: 'append' } },
    );
    session.append(
      'assistant/message',
      {
        content: [{ type: 'text', text: `Looked at file ${turn}; it is fine.` }],
        finishReason: 'stop',
        usage: { inputTokens: 10, cacheReadTokens: 90, cacheWriteTokens: 0, outputTokens: 8 },
      },
      { turn, step: 1, surfaceOp: { op: 'append' } },
    );
    session.append('turn/end', { reason: 'completed', steps: 1 }, { turn });
  }
  await session.close();
  console.log(`wrote ${session.lastSeq} events`);
}

// The default configuration: workspace, recall, web and language-server tools.
const config = { ...defaultConfig(process.env), sessionDir, fsync: 'never' as const };
const model = fixedModel(createRecordedModel({ events: [] }), 'deepseek-v4-flash', 1_000_000);

// Collect the previous run's 100k events first (the bench runner passes --expose-gc), so a
// major GC does not land in the middle of either measurement.
const collect = (): void => (globalThis as { gc?: () => void }).gc?.();

async function openOnly(): Promise<number> {
  collect();
  const start = performance.now();
  const session = await Session.open({
    store: createJsonlStore({ dir: sessionDir, fsync: 'never' }),
    id,
  });
  const elapsed = performance.now() - start;
  await session.close();
  return elapsed;
}

async function resumeReady(): Promise<number> {
  collect();
  const start = performance.now();
  const active = await startAgentSession({ config, cwd: workspace, resumeId: id, model });
  if (active.agent.interruptedTurn !== undefined) throw new Error('unexpected interrupted turn');
  const elapsed = performance.now() - start;
  await active.finish('bench');
  return elapsed;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

try {
  await openOnly();
  await resumeReady();
  const open: number[] = [];
  const resume: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    open.push(await openOnly());
    resume.push(await resumeReady());
    console.log(
      `run ${run + 1}: Session.open ${open.at(-1)!.toFixed(0)} ms, spine resume ready ${resume.at(-1)!.toFixed(0)} ms`,
    );
  }
  const ratio = median(resume) / median(open);
  console.log(
    `median: open ${median(open).toFixed(0)} ms, resume ready ${median(resume).toFixed(0)} ms, ratio ${ratio.toFixed(2)} (target ≤ 1.5)`,
  );
  console.log(
    JSON.stringify({
      bench: 'cli/resume',
      events: EVENTS,
      openMs: Math.round(median(open)),
      resumeReadyMs: Math.round(median(resume)),
      ratio: Number(ratio.toFixed(2)),
      target: 1.5,
      pass: ratio <= 1.5,
    }),
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
