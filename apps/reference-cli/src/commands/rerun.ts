import { existsSync } from 'node:fs';
import type { ApprovalAnswer, SessionEvent, ToolApprovalBody } from '@spine/protocol';
import { createJsonlStore, createMemoryStore, Session } from '@spine/session-log';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { UsageError } from '../errors.js';
import { EXIT_CODES } from '../exit-codes.js';
import { scratchUserMemory } from '../memory/memory-wiring.js';
import { createRecordedModel, createRecordedSummarizer } from '../model-recorded.js';
import { attachLiveOutput } from '../present/live.js';
import { preview, styleFor } from '../present/style.js';
import {
  compactManually,
  completedCompactions,
  isBefore,
  recordedManualCompactions,
} from '../rerun-compactions.js';
import { compareToolResults, recordedTurnInputs } from '../rerun-compare.js';
import { newSessionId } from '../session-index.js';
import { readSessionEvents, storeFor } from '../store.js';
import { fixedModel, wireAgent } from '../wire.js';

/** What `spine rerun` found, also printed with `--json`. */
export interface RerunSummary {
  /** The recorded session. */
  sessionId: string;
  /** The session the rerun wrote (kept with `--out-dir`). */
  rerunSessionId: string;
  /** Recorded turns re-executed. */
  turns: number;
  /** Recorded model outputs, and how many the rerun consumed. */
  modelOutputs: { recorded: number; replayed: number };
  /** Tool results of the recording and the rerun, and how many are identical. */
  toolResults: { recorded: number; rerun: number; same: number };
  /** The tool results that differ. */
  differences: ReturnType<typeof compareToolResults>['differences'];
  /** Whether every request of the rerun is rebuilt exactly from its log. */
  requestsVerified: { ok: boolean; count: number };
  /**
   * Completed compactions (`compaction/end`) in the recording and in the rerun (a difference is
   * a mismatch), and how many recorded manual compactions (`/compact`) the rerun issued again.
   */
  compactions: { recorded: number; rerun: number; manual: number };
  /** Whether the rerun matches the recording. */
  ok: boolean;
}

/**
 * `spine rerun <id>`: re-executes a recorded session against the current code and workspace with
 * the recorded model outputs (no network, no key), compares every tool result with the recorded
 * one, and verifies the new session's requests. Exit 5 when anything differs.
 */
export async function rerunCommand(
  id: string,
  flags: AgentFlags & { outDir?: string },
): Promise<number> {
  const { loaded, cwd } = configForFlags(flags);
  const { config } = loaded;
  if (!existsSync(cwd))
    throw new UsageError({
      message: `--cwd ${cwd} does not exist; pass the workspace to rerun in`,
    });
  const recorded = await readSessionEvents(storeFor(config), id, config.sessionDir);
  const summary = await rerunSession(recorded, {
    cwd,
    config,
    json: Boolean(flags.json),
    ...(flags.outDir ? { outDir: flags.outDir } : {}),
  });
  return summary.ok ? EXIT_CODES.ok : EXIT_CODES.mismatch;
}

/** Re-executes `recorded` in `cwd`; prints progress and the verdict; returns the summary. */
export async function rerunSession(
  recorded: readonly SessionEvent[],
  options: {
    cwd: string;
    config: import('../config/schema.js').SpineConfig;
    json: boolean;
    outDir?: string;
  },
): Promise<RerunSummary> {
  const header = recorded[0]?.body as { sessionId: string; cwd?: string; model?: string };
  const style = styleFor(process.stdout);
  const out = options.json ? process.stderr : process.stdout;
  const model = createRecordedModel({ events: recorded });
  const modelId = header.model?.split('/').slice(1).join('/') || 'recorded';
  const store = options.outDir
    ? createJsonlStore({ dir: options.outDir, fsync: 'never' })
    : createMemoryStore();
  const session = await Session.create({
    store,
    id: newSessionId(),
    cwd: options.cwd,
    model: `${model.provider}/${modelId}`,
    title: `rerun of ${header.sessionId}`,
    parent: { sessionId: header.sessionId, atSeq: 0 },
  });
  const answers = recordedApprovals(recorded);
  // A rerun never touches the person's real user memory: it starts from an empty temporary file.
  const scratch = scratchUserMemory(options.config);
  const definedTools = recorded
    .filter((event) => event.type === 'tools/defined')
    .flatMap((event) =>
      (event.body as { tools: { name: string }[] }).tools.map((tool) => tool.name),
    );
  const wired = await wireAgent({
    config: scratch.config,
    cwd: options.cwd,
    session,
    model: fixedModel(model, modelId, await recordedContextWindow(options.config, header.model)),
    summarizer: createRecordedSummarizer(recorded),
    // No network: web tools stay off; language servers only if the recording used them.
    web: false,
    lsp: definedTools.some((name) => name.startsWith('lsp_')),
    approve: async (request) => answers.get(request.toolCallId) ?? 'once',
    onWarning: (message) => out.write(style.yellow(`warning: ${message}\n`)),
  });
  const detach = attachLiveOutput(wired.agent, { text: out, notices: out }, style);
  const inputs = recordedTurnInputs(recorded);
  const manual = recordedManualCompactions(recorded);
  let issued = 0;
  // Issues, in order, the recorded manual compactions placed before `turn` (all left: no turn).
  const compactUpTo = async (turn?: number): Promise<void> => {
    while (issued < manual.length && isBefore(manual[issued]!, turn)) {
      out.write(style.dim('rerun: /compact (recorded manual compaction)\n'));
      await compactManually(wired, session);
      issued++;
    }
  };
  out.write(
    style.dim(
      `rerun of ${header.sessionId}: ${inputs.length} turn(s), ${model.total} recorded model outputs, workspace ${options.cwd}\n`,
    ),
  );
  try {
    for (const input of inputs) {
      await compactUpTo(input.turn);
      out.write(`${style.cyan('you ›')} ${preview(input.content, 200)}\n`);
      // Inputs typed during the recorded turn are queued again at the step they entered.
      const onStepEnd = ({ step }: { step: number }): void => {
        for (const queued of input.nextStep.filter((item) => item.step === step + 1)) {
          wired.agent.enqueue(queued.content, 'next-step');
        }
      };
      wired.agent.on('step-end', onStepEnd);
      const result = await wired.agent
        .run(input.content)
        .finally(() => wired.agent.off('step-end', onStepEnd));
      if (result.reason === 'error')
        out.write(style.red(`turn failed: ${result.error?.message ?? ''}\n`));
    }
    await compactUpTo();
  } finally {
    detach();
    scratch.dispose();
  }
  const { replay } = await import('@spine/agent-loop');
  const verified = replay(session);
  const comparison = compareToolResults(recorded, session.events(), {
    recorded: header.cwd,
    rerun: options.cwd,
  });
  await wired.close();
  await session.close();
  const compactions = {
    recorded: completedCompactions(recorded),
    rerun: completedCompactions(session.events()),
    manual: issued,
  };
  const ok =
    comparison.differences.length === 0 &&
    model.served === model.total &&
    verified.ok &&
    compactions.recorded === compactions.rerun;
  const summary: RerunSummary = {
    sessionId: header.sessionId,
    rerunSessionId: session.id,
    turns: inputs.length,
    modelOutputs: { recorded: model.total, replayed: model.served },
    toolResults: { recorded: comparison.recorded, rerun: comparison.rerun, same: comparison.same },
    differences: comparison.differences,
    requestsVerified: { ok: verified.ok, count: verified.requests.length },
    compactions,
    ok,
  };
  if (options.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  else printSummary(summary, style);
  return summary;
}

function recordedApprovals(events: readonly SessionEvent[]): Map<string, ApprovalAnswer> {
  const answers = new Map<string, ApprovalAnswer>();
  for (const event of events) {
    if (event.type !== 'tool/approval') continue;
    const body = event.body as ToolApprovalBody;
    answers.set(body.toolCallId, body.decision === 'deny' ? 'deny' : 'once');
  }
  return answers;
}

function printSummary(summary: RerunSummary, style: ReturnType<typeof styleFor>): void {
  const lines = [
    '',
    `model outputs replayed: ${summary.modelOutputs.replayed}/${summary.modelOutputs.recorded}`,
    `tool results identical: ${summary.toolResults.same}/${summary.toolResults.recorded} (rerun produced ${summary.toolResults.rerun})`,
    `requests of the rerun verified from its log: ${summary.requestsVerified.count} ${summary.requestsVerified.ok ? 'ok' : 'MISMATCH'}`,
  ];
  const { compactions } = summary;
  const counts = `${compactions.rerun}/${compactions.recorded} (${compactions.manual} manual issued again)`;
  lines.push(
    compactions.rerun === compactions.recorded
      ? `compactions completed: ${counts}`
      : style.red(
          `compactions completed: ${counts} MISMATCH: the rerun completed ${compactions.rerun}, the recording ${compactions.recorded}`,
        ),
  );
  for (const difference of summary.differences.slice(0, 5)) {
    lines.push(
      style.red(
        `  differs: result ${difference.index + 1} (${difference.toolName}, ${difference.field})`,
      ),
      `    recorded: ${preview(difference.expected ?? '-', 160)}`,
      `    now:      ${preview(difference.actual ?? '-', 160)}`,
    );
  }
  lines.push(
    summary.ok
      ? style.green('rerun matches the recording')
      : style.red('rerun differs from the recording'),
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The context window of the recorded model (so compaction triggers where it did), else 128k. */
async function recordedContextWindow(
  config: import('../config/schema.js').SpineConfig,
  name: string | undefined,
): Promise<number> {
  const slash = name?.indexOf('/') ?? -1;
  if (!name || slash <= 0) return config.contextWindow ?? 128_000;
  const llm = await import('@spine/llm');
  const info = llm.lookupModel(
    llm.createModelTable(config.models),
    name.slice(0, slash),
    name.slice(slash + 1),
  );
  return config.contextWindow ?? info?.contextWindow ?? 128_000;
}
