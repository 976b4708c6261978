// `spine export --format html` and `spine serve` on long sessions (10k and 100k events, generated
// here: tool-calling turns compacted every 200 turns, as in resume-large.bench.ts). Each export
// runs in a fresh process (this file again as a child) and reports wall time, peak RSS (VmHWM)
// and output bytes per event, then again with the heap capped at 32 MB (what it holds does not
// grow with the session: it still completes); `serve` is measured in-process: the time to the
// whole first page of the 100k session (median of 7 after a warm-up). Targets (issue 37): peak
// memory (uncapped, as a user runs it) at 100k ≤ 1.2× at 10k; first page ≤ 200 ms. Each step's request is recorded as the agent loop records
// it (`RequestBuilder`: prompt/system and tools/defined once, request/header with the hash chain
// and prefix attribution, request/context), so the export rebuilds and verifies every request.
// Baseline in the same run: the same sessions with no request headers (nothing to verify), so
// the cost of verification shows as the ratio between the two.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentLoopProjections, RequestBuilder, SystemPrompt } from '@spine/agent-loop';
import type { ToolSpec } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { createChunkWriter, fileSink } from '@spine/tui';
import { writeSessionHtml } from '../src/html/export-html.js';
import { createAuditServer } from '../src/serve/server.js';

const surface = { surfaceOp: { op: 'append' as const } };

const READ_TOOL: ToolSpec = {
  name: 'read',
  description: 'Read a file of the workspace.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
  },
};

/** Writes a session of about `events` events; with `requests`, each step's request is recorded. */
async function generate(
  dir: string,
  id: string,
  events: number,
  requests: boolean,
): Promise<number> {
  const session = await Session.create({
    store: createJsonlStore({ dir, fsync: 'never' }),
    id,
    model: 'deepseek/deepseek-v4-flash',
    projections: agentLoopProjections,
  });
  const builder = requests ? new RequestBuilder(session) : undefined;
  const snapshot = new SystemPrompt(
    'You are a coding agent. Read before you edit; keep changes small.',
  ).assemble({ tools: [READ_TOOL] });
  const request = (turn: number, step: number): void => {
    builder?.buildRequest({
      snapshot,
      modelId: 'deepseek-v4-flash',
      provider: 'deepseek',
      turn,
      step,
      attempt: 1,
    });
  };
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
    request(turn, 1);
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
    const content = `export const value${turn} = "naïve <b>quoted</b> ✓";\n`.repeat(6);
    session.append(
      'tool/result',
      { toolCallId: call.id, toolName: 'read', content, isError: false },
      { turn, step: 1, ...surface },
    );
    session.append('step/end', {}, { turn, step: 1 });
    session.append('step/start', {}, { turn, step: 2 });
    request(turn, 2);
    const usage = {
      inputTokens: 10,
      cacheReadTokens: 90,
      cacheWriteTokens: 0,
      outputTokens: 8,
      costUsd: 0.0001,
    };
    session.append(
      'assistant/message',
      {
        content: [{ type: 'text', text: `Module **${turn % 97}** is fine.` }],
        finishReason: 'stop',
        usage,
      },
      { turn, step: 2, ...surface },
    );
    session.append('step/end', {}, { turn, step: 2 });
    session.append('turn/end', { reason: 'completed', steps: 2 }, { turn, step: 2 });
    if (turn % 200 === 0) {
      const seqs = session.surface().filter((seq) => seq !== 1);
      session.append(
        'user/message',
        { content: `Summary of turns up to ${turn}.`, source: 'compact-checkpoint' },
        {
          turn,
          surfaceOp: { op: 'replace', start: seqs[0] as number, end: seqs.at(-1) as number },
        },
      );
    }
    if (turn % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await session.close();
  return session.lastSeq;
}

/** Peak resident set size of this process, in bytes. */
function peakRss(): number {
  return (
    Number(/VmHWM:\s*(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? Number.NaN) *
    1024
  );
}

/** Child: one export in this fresh process. Prints JSON. */
async function child(dir: string, id: string, out: string): Promise<void> {
  const start = performance.now();
  const file = fileSink(out);
  const writer = createChunkWriter(file.sink);
  await writeSessionHtml(createJsonlStore({ dir }), id, writer);
  await writer.end();
  file.close();
  process.stdout.write(
    `${JSON.stringify({ ms: performance.now() - start, peakRss: peakRss(), bytes: statSync(out).size })}\n`,
  );
}

type Figures = { ms: number; peakRss: number; bytes: number };

/** The old-generation cap of the second export of each session, in MB (`--max-old-space-size`). */
const HEAP_CAP_MB = 32;

function exportInChild(dir: string, id: string, out: string, heapCapMb?: number): Figures {
  const cap = heapCapMb === undefined ? [] : [`--max-old-space-size=${heapCapMb}`];
  const run = spawnSync(
    process.execPath,
    [...cap, '--import', 'tsx', fileURLToPath(import.meta.url), 'child', dir, id, out],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`export ${id}: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as Figures;
}

/** Milliseconds to fetch the whole first page of `id` from an in-process server (median of 7). */
async function firstPageMs(dir: string, id: string): Promise<number> {
  const store = createJsonlStore({ dir });
  const server = createAuditServer({
    store,
    token: 't',
    rows: async () => ({ rows: [], problems: [] }),
    sessionDir: dir,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/s/${id}?token=t`;
  const times: number[] = [];
  try {
    await (await fetch(url)).text();
    for (let round = 0; round < 7; round++) {
      const start = performance.now();
      const page = await (await fetch(url)).text();
      times.push(performance.now() - start);
      if (!page.includes('later events')) throw new Error('the first page is not paged');
    }
  } finally {
    server.close();
  }
  return times.sort((a, b) => a - b)[3] as number;
}

/** The verdict line of an exported page: how many requests were rebuilt, and whether all match. */
function verdictOf(file: string): { requests: number; verified: boolean } {
  const html = readFileSync(file, 'utf8');
  const all = /verified: all (\d+) requests rebuilt from the log match/.exec(html);
  return all
    ? { requests: Number(all[1]), verified: true }
    : { requests: (html.match(/class="(ok|bad) verdict"/g) ?? []).length, verified: false };
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'spine-bench-audit-html-'));
  const dir = join(root, 'sessions');
  mkdirSync(dir, { recursive: true });
  try {
    const rows: Record<string, Record<string, number | boolean>> = {};
    for (const size of [10_000, 100_000]) {
      for (const requests of [true, false]) {
        const id = `${requests ? 's' : 'baseline-s'}${size}`;
        const events = await generate(dir, id, size, requests);
        const out = join(root, `${id}.html`);
        const figures = exportInChild(dir, id, out);
        const verdict = verdictOf(out);
        // The same export with the heap capped: it completes, so what it holds does not grow
        // with the session; what the uncapped run adds is the heap V8 grows lazily.
        const capped = exportInChild(dir, id, out, HEAP_CAP_MB);
        rows[id] = {
          events,
          requests: verdict.requests,
          allVerified: verdict.verified,
          exportMs: Math.round(figures.ms),
          peakRssMB: Number((figures.peakRss / 2 ** 20).toFixed(1)),
          cappedPeakRssMB: Number((capped.peakRss / 2 ** 20).toFixed(1)),
          cappedExportMs: Math.round(capped.ms),
          htmlBytes: figures.bytes,
          bytesPerEvent: Math.round(figures.bytes / events),
        };
        console.log(id, JSON.stringify(rows[id]));
        rmSync(out);
      }
    }
    const figure = (id: string, key: string) => rows[id]?.[key] as number;
    const memoryRatio = figure('s100000', 'peakRssMB') / figure('s10000', 'peakRssMB');
    const cappedRatio = figure('s100000', 'cappedPeakRssMB') / figure('s10000', 'cappedPeakRssMB');
    const verifyCost = figure('s100000', 'exportMs') / figure('baseline-s100000', 'exportMs');
    const pageMs = await firstPageMs(dir, 's100000');
    const verified = rows.s10000?.allVerified === true && rows.s100000?.allVerified === true;
    console.log(
      JSON.stringify({
        bench: 'cli/audit-html',
        rows,
        memoryRatio100kTo10k: Number(memoryRatio.toFixed(2)),
        heapCapMB: HEAP_CAP_MB,
        cappedMemoryRatio100kTo10k: Number(cappedRatio.toFixed(2)),
        verificationTimeRatio100k: Number(verifyCost.toFixed(2)),
        serveFirstPage100kMs: Number(pageMs.toFixed(1)),
        targets: {
          memoryRatio100kTo10k: 1.2,
          serveFirstPage100kMs: 200,
          allVerified: true,
        },
        pass: memoryRatio <= 1.2 && pageMs <= 200 && verified,
      }),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const [role, ...rest] = process.argv.slice(2);
if (role === 'child') await child(...(rest as [string, string, string]));
// `generate <dir> <id> <events>`: only writes a session (to look at one export by hand).
else if (role === 'generate')
  await generate(rest[0] as string, rest[1] as string, Number(rest[2]), rest[3] !== 'bare');
else await main();
