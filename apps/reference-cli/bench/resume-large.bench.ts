// `spine resume` of large sessions (10k and 100k events; 1M with SPINE_BENCH_1M=1), generated here
// (nothing checked in): a coding session of tool-calling turns, compacted every 200 turns as the
// agent would be. Each figure is taken in a fresh process (this file run again as a child), after
// a warm-up on a small session there (module loading is excluded): the lazy open (wall and CPU),
// resume ready for input (startAgentSession), resume to the first model request, a full
// Session.open of the same file, and the bytes each read (rchar of /proc/self/io: every read
// syscall, page-cache hits included). Ratios across sizes are in one run; the last line is one JSON
// object. Targets (issues 41 and 42): first request at the largest size ≤ 1.2× at 10k, open CPU
// ≤ 1.5× 10k, 100k resume ready ≤ 1.5× Session.open of the same file.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRecordedModel } from '@spine/agent-loop';
import { agentProjections, defaultConfig, fixedModel, startAgentSession } from '@spine/harness';
import type { ModelClient, SessionEvent } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';

const TURNS_PER_COMPACTION = 200;
const MODEL = 'deepseek/deepseek-v4-flash';

/** Bytes this process has read through read syscalls so far. */
function rchar(): number {
  return Number(/rchar:\s*(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? Number.NaN);
}

/** Writes a session of about `events` events: tool-calling turns, compacted every 200 turns. */
async function generate(sessionDir: string, id: string, cwd: string, events: number) {
  const store = createJsonlStore({ dir: sessionDir, fsync: 'never' });
  const session = await Session.create({
    store,
    id,
    cwd,
    model: MODEL,
    projections: await agentProjections(),
  });
  const surface = { surfaceOp: { op: 'append' as const } };
  let turn = 0;
  while (session.lastSeq < events - 12) {
    turn++;
    const call = {
      type: 'tool-call',
      id: `call_${turn}`,
      name: 'read',
      arguments: `{"path":"src/m${turn % 97}.ts"}`,
    };
    session.append('turn/start', {}, { turn });
    session.append(
      'user/message',
      { content: `Check module ${turn % 97}.`, source: 'user' },
      { turn, ...surface },
    );
    session.append('step/start', {}, { turn, step: 1 });
    session.append(
      'assistant/message',
      { content: [call], finishReason: 'tool-calls' },
      { turn, step: 1, ...surface },
    );
    session.append(
      'tool/started',
      { toolCallId: call.id, toolName: 'read', arguments: call.arguments },
      { turn, step: 1 },
    );
    const content = `export const value${turn} = "naïve \\"quoted\\" ✓";\n`.repeat(6);
    session.append(
      'tool/result',
      { toolCallId: call.id, toolName: 'read', content, isError: false },
      { turn, step: 1, ...surface },
    );
    session.append('step/end', {}, { turn, step: 1 });
    session.append('step/start', {}, { turn, step: 2 });
    session.append(
      'assistant/message',
      {
        content: [{ type: 'text', text: `Module ${turn % 97} is fine.` }],
        finishReason: 'stop',
        usage: { inputTokens: 10, cacheReadTokens: 90, cacheWriteTokens: 0, outputTokens: 8 },
      },
      { turn, step: 2, ...surface },
    );
    session.append('step/end', {}, { turn, step: 2 });
    session.append('turn/end', { reason: 'completed', steps: 2 }, { turn, step: 2 });
    if (turn % TURNS_PER_COMPACTION === 0) {
      const seqs = session.surface().filter((seq) => seq !== 1);
      session.append(
        'user/message',
        {
          content: `Summary of turns up to ${turn}: every module checked was fine.`,
          source: 'compact-checkpoint',
        },
        {
          turn,
          surfaceOp: { op: 'replace', start: seqs[0] as number, end: seqs.at(-1) as number },
        },
      );
    }
    session.checkpoint();
    // As between an agent's turns: the background snapshot a checkpoint started gets written.
    if (turn % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await session.snapshot();
  await session.close();
  return session.lastSeq;
}

/** Child: one measurement in this fresh process, after the same on `warm`. Prints JSON. */
async function child(mode: string, sessionDir: string, id: string, warm: string, cwd: string) {
  const config = {
    ...defaultConfig(process.env),
    sessionDir,
    fsync: 'never' as const,
    lsp: { ...defaultConfig(process.env).lsp, enabled: false },
  };
  const reply = {
    seq: 2,
    type: 'assistant/message',
    at: '',
    body: { content: [{ type: 'text', text: 'ok' }], finishReason: 'stop' },
  } as SessionEvent;
  const measure = async (target: string) => {
    let firstRequest = Number.NaN;
    const recorded = createRecordedModel({ events: [reply, reply] });
    const client: ModelClient = {
      ...recorded,
      stream(request, options) {
        if (Number.isNaN(firstRequest)) firstRequest = performance.now();
        return recorded.stream(request, options);
      },
    };
    const model = fixedModel(client, 'deepseek-v4-flash', 1_000_000);
    (globalThis as { gc?: () => void }).gc?.();
    const bytes = rchar();
    const cpu = process.cpuUsage();
    const start = performance.now();
    let readyMs = Number.NaN;
    if (mode === 'open-lazy' || mode === 'open-full') {
      const session = await Session.open({
        store: createJsonlStore({ dir: sessionDir, fsync: 'never' }),
        id: target,
        ...(mode === 'open-lazy'
          ? { history: 'lazy' as const, projections: await agentProjections() }
          : {}),
      });
      readyMs = performance.now() - start;
      await session.close();
    } else {
      const active = await startAgentSession({
        config,
        cwd,
        resumeId: target,
        model,
        lsp: false,
        web: false,
      });
      readyMs = performance.now() - start;
      if (mode === 'first-request') await active.agent.run('one more module');
      await active.finish('bench');
    }
    const used = process.cpuUsage(cpu);
    return {
      ms: readyMs,
      firstRequestMs: firstRequest - start,
      cpuMs: (used.user + used.system) / 1000,
      readBytes: rchar() - bytes,
    };
  };
  await measure(warm);
  process.stdout.write(`${JSON.stringify(await measure(id))}\n`);
}

type Figures = { ms: number; firstRequestMs: number; cpuMs: number; readBytes: number };

function inChild(mode: string, sessionDir: string, id: string, warm: string, cwd: string): Figures {
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--expose-gc',
      fileURLToPath(import.meta.url),
      'child',
      mode,
      sessionDir,
      id,
      warm,
      cwd,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 24 },
  );
  if (run.status !== 0) throw new Error(`${mode} ${id}: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as Figures;
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main() {
  const sizes = [10_000, 100_000, ...(process.env.SPINE_BENCH_1M === '1' ? [1_000_000] : [])];
  const rounds = Number(process.env.SPINE_BENCH_ROUNDS ?? 3);
  // SPINE_BENCH_DIR keeps the generated sessions there (and reuses them on the next run).
  const kept = process.env.SPINE_BENCH_DIR;
  const root = kept ?? mkdtempSync(join(tmpdir(), 'spine-bench-resume-large-'));
  const sessionDir = join(root, 'sessions');
  const cwd = join(root, 'ws');
  mkdirSync(cwd, { recursive: true });
  const exists = (id: string) => existsSync(join(sessionDir, `${id}.jsonl`));
  try {
    if (!exists('warm')) await generate(sessionDir, 'warm', cwd, 2_000);
    const rows: Record<string, Record<string, number>> = {};
    for (const events of sizes) {
      const id = `s${events}`;
      const written = exists(id) ? events : await generate(sessionDir, id, cwd, events);
      // A full open is the baseline of the 100k target only (1M events held would need GBs).
      const samples: Record<string, Figures[]> = {
        'open-lazy': [],
        ...(events <= 100_000 ? { 'open-full': [] } : {}),
        ready: [],
        'first-request': [],
      };
      // Round by round, interleaved, so that a busy machine slows every figure alike.
      for (let round = 0; round < rounds; round++) {
        for (const mode of Object.keys(samples))
          samples[mode]?.push(inChild(mode, sessionDir, id, 'warm', cwd));
      }
      const of = (mode: string, key: keyof Figures) =>
        median((samples[mode] ?? []).map((f) => f[key]));
      rows[id] = {
        events: written,
        logBytes: statSync(join(sessionDir, `${id}.jsonl`)).size,
        snapshotBytes: statSync(join(sessionDir, `${id}.jsonl.snapshot`)).size,
        lazyOpenMs: of('open-lazy', 'ms'),
        lazyOpenCpuMs: of('open-lazy', 'cpuMs'),
        lazyOpenReadBytes: of('open-lazy', 'readBytes'),
        fullOpenMs: of('open-full', 'ms'),
        readyMs: of('ready', 'ms'),
        readyReadBytes: of('ready', 'readBytes'),
        firstRequestMs: of('first-request', 'firstRequestMs'),
        firstRequestReadBytes: of('first-request', 'readBytes'),
      };
      console.log(id, JSON.stringify(rows[id]));
    }
    const small = rows.s10000 as Record<string, number>;
    const largest = rows[`s${sizes.at(-1)}`] as Record<string, number>;
    const mid = rows.s100000 as Record<string, number>;
    const ratios = {
      firstRequestLargestTo10k:
        (largest.firstRequestMs as number) / (small.firstRequestMs as number),
      openCpuLargestTo10k: (largest.lazyOpenCpuMs as number) / (small.lazyOpenCpuMs as number),
      readyToFullOpen100k: (mid.readyMs as number) / (mid.fullOpenMs as number),
      readBytesLargestTo10k:
        (largest.firstRequestReadBytes as number) / (small.firstRequestReadBytes as number),
    };
    const pass =
      ratios.firstRequestLargestTo10k <= 1.2 &&
      ratios.openCpuLargestTo10k <= 1.5 &&
      ratios.readyToFullOpen100k <= 1.5;
    const round2 = (value: number) => Number(value.toFixed(2));
    console.log(
      JSON.stringify({
        bench: 'cli/resume-large',
        rows,
        ratios: Object.fromEntries(
          Object.entries(ratios).map(([key, value]) => [key, round2(value)]),
        ),
        targets: {
          firstRequestLargestTo10k: 1.2,
          openCpuLargestTo10k: 1.5,
          readyToFullOpen100k: 1.5,
        },
        pass,
      }),
    );
  } finally {
    if (!kept) rmSync(root, { recursive: true, force: true });
  }
}

const [role, ...rest] = process.argv.slice(2);
if (role === 'child') await child(...(rest as [string, string, string, string, string]));
else await main();
