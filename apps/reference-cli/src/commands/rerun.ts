import { existsSync } from 'node:fs';
import {
  fixedModel,
  newSessionId,
  preview,
  readSessionEvents,
  scratchUserMemory,
  storeFor,
  UsageError,
  wireAgent,
} from '@spine/harness';
import type { SessionConfigBody, SessionEvent } from '@spine/protocol';
import { createJsonlStore, createMemoryStore, Session } from '@spine/session-log';
import type { ApprovalPolicyName } from '@spine/tool-runtime';
import { attachLiveOutput, styleFor } from '@spine/tui';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';

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
  differences: import('@spine/agent-loop').ToolResultDifference[];
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
    config: import('@spine/harness').SpineConfig;
    json: boolean;
    outDir?: string;
  },
): Promise<RerunSummary> {
  const {
    createRecordedModel,
    createRecordedSummarizer,
    recordedApprovals,
    recordedTurnInputs,
    rerun,
  } = await import('@spine/agent-loop');
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
  const agents = await import('../agents/rerun.js');
  const children = await (await import('@spine/harness')).recordedChildrenOf(
    storeFor(options.config),
    header.sessionId,
    recorded,
  );
  // A rerun never touches the person's real user memory: it starts from an empty temporary file.
  const scratch = scratchUserMemory(options.config);
  const definedTools = recorded
    .filter((event) => event.type === 'tools/defined')
    .flatMap((event) =>
      (event.body as { tools: { name: string }[] }).tools.map((tool) => tool.name),
    );
  const wired = await wireAgent({
    // The recorded prompts are already the ones the hooks let through (or rewrote), and recorded
    // approvals answer every question: those hooks do not run again.
    config: {
      ...scratch.config,
      hooks: {
        ...scratch.config.hooks,
        'user-prompt-submit': [],
        'permission-request': [],
        notification: [],
      },
    },
    cwd: options.cwd,
    session,
    model: fixedModel(model, modelId, await recordedContextWindow(options.config, header.model)),
    summarizer: createRecordedSummarizer(recorded),
    // No network: web tools stay off; language servers only if the recording used them.
    web: false,
    lsp: definedTools.some((name) => name.startsWith('lsp_')),
    // MCP tools answer with their recorded results: no server starts. Only a recording that
    // defined MCP tools loads @spine/mcp (an optional part: a rerun without MCP needs none).
    ...(definedTools.some((name) => name.startsWith('mcp__')) ? { mcpRecorded: recorded } : {}),
    approve: async (request) => answers.get(request.toolCallId) ?? 'once',
    // Background jobs are not started again: job tools answer with their recorded results.
    jobsRecorded: recorded,
    // Turns end where the recording's budget ended them, whatever the limits now.
    budget: (await import('@spine/harness')).recordedBudgetCheck(recorded),
    ...(children ? { childRecordings: children } : {}),
    onWarning: (message) => out.write(style.yellow(`warning: ${message}\n`)),
  });
  const detach = attachLiveOutput(wired.agent, { text: out, notices: out }, style);
  out.write(
    style.dim(
      `rerun of ${header.sessionId}: ${recordedTurnInputs(recorded).length} turn(s), ${model.total} recorded model outputs, workspace ${options.cwd}\n`,
    ),
  );
  let report: import('@spine/agent-loop').RerunReport;
  try {
    report = await rerun(recorded, {
      agent: wired.agent,
      model,
      compact: async () => {
        await wired.agent.compact();
      },
      workspaces: { ...(header.cwd ? { recorded: header.cwd } : {}), rerun: options.cwd },
      onCompact: () => out.write(style.dim('rerun: /compact (recorded manual compaction)\n')),
      // Rewinds and plan-mode switches recorded between turns are repeated before the turn
      // that followed them.
      beforeTurn: await rerunBeforeTurn(
        recorded,
        { ...wired, session },
        {
          ...{ config: options.config, cwd: options.cwd },
          warn: (message) => out.write(style.yellow(`warning: ${message}\n`)),
        },
      ),
      onTurn: (input) => out.write(`${style.cyan('you ›')} ${preview(input.content, 200)}\n`),
      onTurnEnd: (result) => {
        if (result.reason === 'error')
          out.write(style.red(`turn failed: ${result.error?.message ?? ''}\n`));
      },
    });
  } finally {
    detach();
    scratch.dispose();
    await wired.close();
    await session.close();
  }
  const workspaces = { ...(header.cwd ? { recorded: header.cwd } : {}), rerun: options.cwd };
  if (
    children &&
    !(await agents.compareChildren(children, store, session.id, { out, style, workspaces }))
  )
    report.ok = false;
  const summary: RerunSummary = {
    sessionId: header.sessionId,
    rerunSessionId: session.id,
    turns: report.turns,
    modelOutputs: report.modelOutputs,
    toolResults: report.toolResults,
    differences: report.differences,
    requestsVerified: { ok: report.verified.ok, count: report.verified.requests.length },
    compactions: report.compactions,
    ok: report.ok,
  };
  if (options.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  else printSummary(summary, style);
  return summary;
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
  config: import('@spine/harness').SpineConfig,
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

/** The rerun's `beforeTurn`: the recorded rewinds, then the recorded `plan/mode` switches. */
async function rerunBeforeTurn(
  recorded: readonly SessionEvent[],
  wired: import('@spine/harness').WiredAgent & { session: Session },
  options: { config: import('@spine/harness').SpineConfig; cwd: string; warn: (m: string) => void },
): Promise<(input: { turn: number }) => Promise<void>> {
  const harness = await import('@spine/harness');
  const restores = harness.createRerunRestores({ recorded, ...options });
  return async (input) => {
    await restores(input);
    // Plan-mode switches and setting changes, in the order the recording made them.
    for (const event of settingsBefore(recorded, input.turn)) {
      if (event.type === 'plan/mode')
        harness.applyPlanMode(
          { session: wired.session, runtime: wired.runtime, prompt: wired.prompt },
          event.body as import('@spine/protocol').PlanModeBody,
        );
      else applyConfig(wired, event.body as SessionConfigBody);
    }
  };
}

/**
 * The `plan/mode` and `session/config` events recorded after the turn before `turn` started, up
 * to its start, in log order.
 */
export function settingsBefore(recorded: readonly SessionEvent[], turn: number): SessionEvent[] {
  let pending: SessionEvent[] = [];
  for (const event of recorded) {
    if (event.type === 'turn/start') {
      if (event.turn === turn) return pending;
      pending = [];
    } else if (event.type === 'plan/mode' || event.type === 'session/config') pending.push(event);
  }
  return [];
}

/**
 * Repeats a recorded setting change in the rerun and records it there: the model id of the next
 * requests (still answered by the recording), or the approval policy (a preset, read-only as `ask`
 * in a read-only sandbox).
 */
function applyConfig(
  wired: import('@spine/harness').WiredAgent & { session: Session },
  body: SessionConfigBody,
): void {
  if (body.option === 'model') {
    const modelId = body.value.split('/').slice(1).join('/') || body.value;
    wired.agent.setModel(wired.model.client, modelId, wired.model.contextWindow);
  } else if (body.value === 'read-only') {
    wired.runtime.setSandbox('read-only');
    wired.runtime.setApproval('ask');
  } else wired.runtime.setApproval(body.value as ApprovalPolicyName);
  wired.session.append('session/config', body);
}
