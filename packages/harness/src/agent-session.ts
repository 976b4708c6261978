import type { SessionEvent, SpineError, ToolRunOptions } from '@spine/protocol';
import { Session } from '@spine/session-log';
import type { SpineConfig } from './config/schema.js';
import { SessionNotFoundError } from './errors.js';
import { agentProjections } from './history/projections.js';
import { openToResume } from './history/resume.js';
import { sessionTotals, usageWithChildren } from './history/totals.js';
import { type ResolvedModel, resolveModel } from './model-config.js';
import { assertBudgetCheckable } from './plan/budget.js';
import { applyPlanMode } from './plan/plan-mode.js';
import { PLAN_MODE_STATE, type PlanModeState, resumePlanMode } from './plan/plan-mode-resume.js';
import { newSessionId, readSessionIndex, writeSessionIndex } from './session-index.js';
import { storeFor } from './store.js';
import { type WiredAgent, wireAgent } from './wire.js';

/** Options of {@link startAgentSession}. */
export interface StartOptions {
  /** The effective configuration ({@link loadConfig}). */
  config: SpineConfig;
  /** The workspace (absolute). */
  cwd: string;
  /** Open this session (resume) instead of creating one. */
  resumeId?: string;
  /** Title of a new session. */
  title?: string;
  /** Id of a new session (default: a fresh one); a worker runs a queued task under its id. */
  sessionId?: string;
  /** The model; default: resolved from the configuration. */
  model?: ResolvedModel;
  /** Answers `ask` approvals; without it `ask` becomes deny. */
  approve?: ToolRunOptions['approve'];
  /**
   * True when `config.approval` was chosen explicitly for this start (`--approval`): a resumed
   * session left in plan mode then leaves it for that policy. Otherwise it resumes in plan mode.
   * Either change is recorded as `plan/mode` with `by: "resume"`.
   */
  approvalChosen?: boolean;
  /** Reports non-fatal problems (a hook failed, a tool family could not load, recovery notes). */
  onWarning?: (message: string) => void;
  /** Called with every event already in the session and each one appended (NDJSON output). */
  onEvent?: (event: SessionEvent) => void;
  /** With `onEvent` on a resumed session: replay the existing events too (default false). */
  includeExisting?: boolean;
  /** Load language-server tools (default: `config.lsp.enabled`). */
  lsp?: boolean;
  /** Load web tools (default: `config.web.enabled`). */
  web?: boolean;
}

/** A session with its agent, ready for input. */
export interface AgentSession extends WiredAgent {
  /** The open session (its log, events, projections). */
  session: Session;
  /** The configuration the session was started with. */
  config: SpineConfig;
  /** The approval policy in force (changed by `/approval`). */
  approval: SpineConfig['approval'];
  /** Records figures for `spine sessions`, fires `stop`, shuts down and closes the session. */
  finish(reason: string): Promise<void>;
}

/**
 * Creates (or opens, to resume) a session in the configured store and wires its agent; fires
 * the `session-start` hooks.
 *
 * @throws a {@link SessionNotFoundError} when `resumeId` names no session.
 * @throws a {@link SpineError} for a locked session or an unusable model configuration.
 */
export async function startAgentSession(options: StartOptions): Promise<AgentSession> {
  const { cwd } = options;
  let { config } = options;
  const store = storeFor(config);
  // An unknown session is named before a missing key: the id is what the person got wrong.
  if (options.resumeId !== undefined && !(await store.exists(options.resumeId))) {
    throw new SessionNotFoundError({ sessionId: options.resumeId, dir: config.sessionDir });
  }
  const model = options.model ?? (await resolveModel(config, { requireKey: true }));
  // A cost limit the price table cannot check is refused before anything is written.
  await assertBudgetCheckable(config, model);
  let session: Session;
  if (options.resumeId !== undefined) {
    // Once, lazily: the snapshot and the tail (plus the interrupted step after a crash).
    session = await openToResume({
      store,
      id: options.resumeId,
      config,
      cwd,
      ...(options.onWarning ? { warn: options.onWarning } : {}),
    });
    if (options.onEvent && options.includeExisting)
      for await (const event of session.readEvents({ fromSeq: 1 })) options.onEvent(event);
  } else {
    session = await Session.create({
      store,
      id: options.sessionId ?? newSessionId(),
      cwd,
      model: `${model.provider}/${model.modelId}`,
      projections: await agentProjections(),
      ...(options.title ? { title: options.title.slice(0, 120) } : {}),
    });
    if (options.onEvent) for (const event of session.events()) options.onEvent(event);
  }
  const unsubscribe = options.onEvent ? session.subscribe(options.onEvent) : () => {};
  // A session left in plan mode resumes in it unless another policy was chosen explicitly.
  const resumed =
    options.resumeId === undefined
      ? undefined
      : resumePlanMode(
          session.projection<PlanModeState>(PLAN_MODE_STATE.name),
          options.config.approval,
          options.approvalChosen === true,
        );
  if (resumed) config = { ...config, approval: resumed.approval as SpineConfig['approval'] };
  let wired: WiredAgent;
  try {
    wired = await wireAgent({
      config,
      cwd,
      session,
      model,
      ...(options.approve ? { approve: options.approve } : {}),
      ...(options.onWarning ? { onWarning: options.onWarning } : {}),
      ...(options.lsp === undefined ? {} : { lsp: options.lsp }),
      ...(options.web === undefined ? {} : { web: options.web }),
    });
  } catch (error) {
    unsubscribe();
    await session.close();
    throw error;
  }
  // A session started in plan mode says so in its log (a switch later is recorded by `/plan`).
  if (resumed) applyPlanMode({ session, runtime: wired.runtime, prompt: wired.prompt }, resumed);
  else if (config.approval === 'plan')
    session.append('plan/mode', { mode: 'plan', approval: 'plan', by: 'config' });
  await wired.hooks.fire('session-start', {
    resumed: options.resumeId !== undefined,
    model: config.model,
  });
  let finished = false;
  return {
    ...wired,
    session,
    config,
    approval: config.approval,
    async finish(reason) {
      if (finished) return;
      finished = true;
      try {
        await wired.hooks.fire('stop', { reason });
        // From the totals projection: no pass over the history.
        const totals = sessionTotals(session);
        await wired.hooks.fire('session-end', { reason, turns: totals.turns });
        const usage = usageWithChildren(totals.own, totals);
        const { turns } = totals;
        const model = totals.model ?? undefined;
        // The title recorded by `session/title` stays (written when it was set).
        const title = readSessionIndex(config.sessionDir, session.id)?.title;
        writeSessionIndex(config.sessionDir, session.id, {
          ...(title === undefined ? {} : { title }),
          ...(usage.costUsd === undefined ? {} : { costUsd: usage.costUsd }),
          ...(model === undefined ? {} : { model }),
          tokens:
            usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens,
          turns,
          updatedAt: new Date().toISOString(),
        });
      } finally {
        unsubscribe();
        await wired.close();
        await session.close();
      }
    },
  };
}
