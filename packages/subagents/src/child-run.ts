import { randomUUID } from 'node:crypto';
import { createAgent, SystemPrompt, type TurnResult } from '@spine/agent-loop';
import type {
  ApprovalRequest,
  ChildEndBody,
  ChildEndReason,
  ChildStartBody,
  SessionLog,
  ToolExecutionContext,
  ToolOutput,
  Usage,
} from '@spine/protocol';
import { Session } from '@spine/session-log';
import { ChangesFold, totalTokens, UsageFold } from './child-record.js';
import { restrictTools } from './internal/restricted-tools.js';
import { renderChildResult } from './render.js';
import type { ChildInfo, ChildModel, TaskToolOptions } from './types.js';

const DEFAULT_MAX_STEPS = 50;
const DEFAULT_TIMEOUT_MS = 600_000;

/** What the task tool decided for one call before the child starts. */
export interface ChildPlan {
  info: Omit<ChildInfo, 'sessionId'>;
  tools: readonly string[];
  prompt: string;
}

/** The parent's current turn and step, for events the task tool writes during the step. */
function positionOf(session: SessionLog): { turn?: number; step?: number } {
  for (let seq = session.lastSeq; seq >= 1; seq--) {
    const event = session.get(seq);
    if (event?.turn !== undefined) {
      return event.step === undefined
        ? { turn: event.turn }
        : { turn: event.turn, step: event.step };
    }
  }
  return {};
}

function modelFor(options: TaskToolOptions, child: ChildInfo): ChildModel {
  const picked = options.childModel?.(child);
  if (picked) return picked;
  const named = child.profile.model ? options.resolveModel?.(child.profile.model) : undefined;
  return named ?? options.model;
}

/** Why the child's own signal fired, when it was not the parent. */
type StopCause = { kind: 'timeout'; ms: number } | { kind: 'tokens'; limit: number; used: number };

function endReason(result: TurnResult, stop: StopCause | undefined): ChildEndReason {
  if (stop) return 'error';
  // A child runs without a budget check of its own (its usage counts toward the parent's).
  return result.reason === 'budget' ? 'error' : result.reason;
}

function stopMessage(stop: StopCause): string {
  return stop.kind === 'timeout'
    ? `the subagent ran out of time (${stop.ms} ms)`
    : `the subagent used ${stop.used} tokens, over its budget of ${stop.limit}`;
}

/**
 * Runs one child: writes `agent/child/start` in the parent, creates the child session (header
 * linked to the parent), runs its turn under its limits and the parent's signal, closes it, writes
 * `agent/child/end`, and renders the tool result. Failures are results, never exceptions, except
 * when the store itself fails.
 */
export async function runChild(
  options: TaskToolOptions,
  plan: ChildPlan,
  call: {
    toolCallId: string;
    signal: AbortSignal;
    /** The parent scheduler's progress channel (live `tool-progress` of the parent agent). */
    onProgress?: ToolExecutionContext['onProgress'];
  },
): Promise<ToolOutput> {
  const parent = options.session;
  const sessionId = randomUUID();
  const child: ChildInfo = { ...plan.info, sessionId };
  const startBody: ChildStartBody = {
    sessionId,
    toolCallId: call.toolCallId,
    profile: child.profile.name,
    description: child.description,
    depth: child.depth,
  };
  const start = parent.append('agent/child/start', startBody, positionOf(parent));
  // The link reaches the store before the child exists, so crash recovery always finds the
  // child it has to close (and the child's header never names a parent seq that was lost).
  await parent.flush();
  const chosen = modelFor(options, child);
  // A variable, not a literal: session-log's create options name only sessionId and atSeq, and
  // the header schema (protocol) accepts the call id beside them.
  const link = { sessionId: parent.id, atSeq: start.seq, toolCallId: call.toolCallId };
  const session = await Session.create({
    store: options.store,
    id: sessionId,
    ...(parent.header.cwd === undefined ? {} : { cwd: parent.header.cwd }),
    title: child.description,
    model: chosen.modelId,
    parent: link,
    meta: { subagent: { profile: child.profile.name, depth: child.depth } },
  });
  const progress = options.onProgress;
  progress?.({ type: 'start', child });
  let result: TurnResult | undefined;
  let stop: StopCause | undefined;
  let failure: string | undefined;
  const controller = new AbortController();
  const abort = (): void => controller.abort(call.signal.reason);
  call.signal.addEventListener('abort', abort, { once: true });
  const timeoutMs = options.limits?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timer = setTimeout(() => {
    stop = { kind: 'timeout', ms: timeoutMs };
    controller.abort(new Error(stopMessage(stop)));
  }, timeoutMs);
  try {
    if (call.signal.aborted) abort();
    const tools = restrictTools(
      await options.createTools({ ...child, tools: plan.tools, session }),
      new Set(plan.tools),
    );
    const prompt = new SystemPrompt(child.profile.prompt);
    options.preparePrompt?.(prompt, child);
    const compaction = options.compaction?.(session, child);
    const meter = options.meter?.(child);
    const approve = options.approve;
    const maxSteps = Math.min(
      child.profile.maxSteps ?? Number.POSITIVE_INFINITY,
      options.limits?.maxSteps ?? DEFAULT_MAX_STEPS,
    );
    const agent = createAgent({
      session,
      model: chosen.model,
      modelId: chosen.modelId,
      contextWindow: chosen.contextWindow ?? options.contextWindow ?? 128_000,
      tools,
      systemPrompt: prompt,
      maxSteps,
      ...(options.limits?.loops ? { loops: options.limits.loops } : {}),
      ...(options.maxOutputTokens === undefined
        ? {}
        : { maxOutputTokens: options.maxOutputTokens }),
      ...(options.retryPolicy ? { retryPolicy: options.retryPolicy } : {}),
      ...(compaction ? { compaction } : {}),
      ...(meter ? { meter } : {}),
      ...(approve
        ? {
            approve: (request: ApprovalRequest, approveOptions: { signal?: AbortSignal }) =>
              approve(
                {
                  ...request,
                  reason: `[subagent ${child.profile.name}: ${child.description}] ${request.reason}`,
                  child,
                },
                approveOptions,
              ),
          }
        : {}),
    });
    const report = call.onProgress;
    if (progress || report) {
      // One line per child with its current tool, for the parent's UI (not logged).
      agent.on('tool-call', ({ call: toolCall }) => {
        progress?.({ type: 'tool', child, toolName: toolCall.name, toolCallId: toolCall.id });
        report?.({
          message: `subagent ${child.profile.name} (${child.description}): ${toolCall.name}`,
          data: { childSessionId: sessionId, toolName: toolCall.name },
        });
      });
    }
    const maxTokens = options.limits?.maxTokens;
    if (maxTokens !== undefined) {
      agent.on('step-end', () => {
        const used = totalTokens(agent.usage);
        if (used > maxTokens && !controller.signal.aborted) {
          stop = { kind: 'tokens', limit: maxTokens, used };
          controller.abort(new Error(stopMessage(stop)));
        }
      });
    }
    options.onChildAgent?.(agent, child);
    result = await agent.run(plan.prompt, { signal: controller.signal });
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
    call.signal.removeEventListener('abort', abort);
  }
  // Streamed, so a session that holds only part of its log (snapshots, lazy history) reads it all.
  const usageFold = new UsageFold();
  const changesFold = new ChangesFold(options.changeTools);
  try {
    const types = [...UsageFold.TYPES, ...ChangesFold.TYPES];
    for await (const event of session.readEvents({ fromSeq: 1, types })) {
      usageFold.add(event);
      changesFold.add(event);
    }
  } finally {
    await session.close();
  }
  const usage: Usage = usageFold.usage;
  const changes = changesFold.result;
  const reason: ChildEndReason = result ? endReason(result, stop) : 'error';
  const error = stop
    ? stopMessage(stop)
    : (failure ?? (reason === 'completed' ? undefined : (result?.error?.message ?? reason)));
  const endBody: ChildEndBody = {
    sessionId,
    toolCallId: call.toolCallId,
    reason,
    steps: result?.steps ?? 0,
    usage,
    files: changes.files,
    commands: changes.commands,
    ...(error === undefined ? {} : { error }),
  };
  parent.append('agent/child/end', endBody, positionOf(parent));
  progress?.({ type: 'end', child, reason, usage });
  return renderChildResult({
    child,
    reason,
    text: result?.text ?? '',
    steps: endBody.steps ?? 0,
    changes,
    usage,
    ...(error === undefined ? {} : { error }),
    ...(options.maxResultChars === undefined ? {} : { maxChars: options.maxResultChars }),
  });
}
