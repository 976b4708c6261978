// Running one claimed task as an ordinary session in the PostgreSQL store: a new session the
// first time, the same session (with Spine's crash recovery) when the task was taken over.

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TurnResult } from '@spine/agent-loop';
import {
  type AgentSession,
  sessionTotals,
  startAgentSession,
  storeFor,
  UsageError,
} from '@spine/harness';
import { SpineError } from '@spine/protocol';
import type { Session } from '@spine/session-log';
import type { TaskRecord } from '@spine/store-postgres';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { isOutage } from './outage.js';
import { isGitUrl } from './submit.js';

/** What a worker passes to {@link runClaimedTask}. */
export interface TaskRunContext {
  /** The worker's own flags (store, approval, sandbox, model…), the base of every task's config. */
  flags: AgentFlags;
  /** Where git workspaces are cloned (one folder per task). */
  workDir: string;
  /** Aborts the task's turn (SIGTERM after the grace period, or a lost claim). */
  signal: AbortSignal;
  /** How long to keep trying to open a session whose previous writer's lease has not expired. */
  openTimeoutMs: number;
  /** Prints a line of the worker's log. */
  say: (line: string) => void;
}

/** How a task ended, as the queue records it. */
export interface TaskOutcome {
  status: 'done' | 'failed';
  result: { sessionId: string; reason: string; error?: string };
  /** The turn failed because the store was unreachable: requeue the task, do not fail it. */
  storeUnavailable?: boolean;
}

/** The input of the turn that continues a task whose previous turn was stopped. */
export function continueText(prompt: string): string {
  return `The previous worker on this task stopped before it finished. Check what was already done, then finish the task:\n\n${prompt}`;
}

/**
 * The folder the task runs in: the workspace path itself, or a clone of the git URL.
 *
 * @throws a {@link UsageError} for a path that is not a folder.
 */
export async function prepareWorkspace(task: TaskRecord, workDir: string): Promise<string> {
  const { workspace } = task.spec;
  if (!isGitUrl(workspace)) {
    if (!existsSync(workspace) || !statSync(workspace).isDirectory()) {
      throw new UsageError({
        message: `Task ${task.id}: workspace ${workspace} is not a folder on this worker; submit a path every worker can reach, or a git URL`,
      });
    }
    return workspace;
  }
  const dir = join(workDir, task.id);
  if (!existsSync(join(dir, '.git'))) {
    mkdirSync(workDir, { recursive: true });
    await promisify(execFile)('git', ['clone', '--quiet', '--', workspace, dir]);
  }
  return dir;
}

async function openSession(
  open: () => Promise<AgentSession>,
  context: TaskRunContext,
): Promise<AgentSession> {
  const deadline = Date.now() + context.openTimeoutMs;
  for (;;) {
    try {
      return await open();
    } catch (error) {
      const locked = SpineError.isInstance(error) && error.code === 'SESSION_LOCKED';
      if (!locked || Date.now() > deadline || context.signal.aborted) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** The reason of the session's last `turn/end`, from the totals projection. */
function lastTurnEnd(session: Session): string | undefined {
  return sessionTotals(session).lastTurnEnd ?? undefined;
}

/** True when the session has begun a turn (streamed: stops at the first `turn/start`). */
async function hasTurns(session: Session): Promise<boolean> {
  for await (const _ of session.readEvents({ fromSeq: 1, types: ['turn/start'], limit: 1 }))
    return true;
  return false;
}

/**
 * Runs `task` to the end of its turn. A session that already has turns is continued: an
 * interrupted turn resumes (tool calls that started but never reported are answered "outcome
 * unknown, verify"), a stopped one gets a turn asking to check and finish, a completed one is
 * done already.
 */
export async function runClaimedTask(
  task: TaskRecord,
  context: TaskRunContext,
): Promise<TaskOutcome> {
  const cwd = await prepareWorkspace(task, context.workDir);
  const { loaded } = configForFlags({
    ...context.flags,
    cwd,
    ...(task.spec.model ? { model: task.spec.model } : {}),
    ...(task.spec.profile ? { profile: task.spec.profile } : {}),
  });
  const config = loaded.config;
  const exists = await storeFor(config).exists(task.sessionId);
  const started = await openSession(
    () =>
      startAgentSession({
        config,
        cwd,
        ...(exists
          ? { resumeId: task.sessionId }
          : { sessionId: task.sessionId, title: task.spec.prompt.slice(0, 120) }),
        onWarning: (message) => context.say(`warning: ${message}`),
      }),
    context,
  );
  const signal = context.signal;
  let result: TurnResult | undefined;
  let reason = 'completed';
  try {
    const session = started.session;
    if (await hasTurns(session)) {
      result = await started.agent.resume({ signal });
      if (!result && lastTurnEnd(session) !== 'completed') {
        result = await started.agent.run(continueText(task.spec.prompt), { signal });
      }
    } else {
      result = await started.agent.run(task.spec.prompt, { signal });
    }
    reason = result?.reason ?? lastTurnEnd(session) ?? 'completed';
  } finally {
    await started.finish(reason);
  }
  return {
    status: reason === 'completed' ? 'done' : 'failed',
    result: {
      sessionId: task.sessionId,
      reason,
      ...(result?.error ? { error: result.error.message } : {}),
    },
    ...(result?.error && isOutage(result.error) ? { storeUnavailable: true } : {}),
  };
}
