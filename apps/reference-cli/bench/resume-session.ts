// The sessions and fresh-process measurements the resume benchmarks share (resume.bench.ts,
// resume-large.bench.ts): `generate` writes a coding session of tool-calling turns, compacted
// every 200 turns as the agent would be; `inChild` runs this file again as a child process that
// warms up on a small session (module loading excluded) and then measures one of: a lazy open,
// a full `Session.open`, `spine resume` ready for input (startAgentSession), or resume to the
// first model request, with the CPU time and the bytes read (rchar of /proc/self/io).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
export async function generate(sessionDir: string, id: string, cwd: string, events: number) {
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
    let firstRequestCpuMs = Number.NaN;
    const recorded = createRecordedModel({ events: [reply, reply] });
    const client: ModelClient = {
      ...recorded,
      stream(request, options) {
        if (Number.isNaN(firstRequest)) {
          firstRequest = performance.now();
          const used = process.cpuUsage(cpu);
          firstRequestCpuMs = (used.user + used.system) / 1000;
        }
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
      firstRequestCpuMs,
      cpuMs: (used.user + used.system) / 1000,
      readBytes: rchar() - bytes,
    };
  };
  await measure(warm);
  process.stdout.write(`${JSON.stringify(await measure(id))}\n`);
}

/** One child measurement. */
export type Figures = {
  ms: number;
  firstRequestMs: number;
  /** Process CPU time from the start to the first model request. */
  firstRequestCpuMs: number;
  cpuMs: number;
  readBytes: number;
};

/** Measures `mode` on session `id` in a fresh process (after a warm-up on `warm`). */
export function inChild(
  mode: string,
  sessionDir: string,
  id: string,
  warm: string,
  cwd: string,
): Figures {
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

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'child') {
  await child(...(process.argv.slice(3) as [string, string, string, string, string]));
}
