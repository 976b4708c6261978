// How `spine resume` opens a session: once, lazily (the snapshot and the events after it), without
// the session's own recovery; then what the crash left open is settled from the snapshot's
// projections: subagents still running (RESUME_STATE.children), tool calls the workspace
// checkpoints can verify (read from the interrupted step on, not from the start of the log), and
// last the session's own recovery ("outcome unknown" / "not started" for what is left).

import { SpineError } from '@spine/protocol';
import { Session } from '@spine/session-log';
import type { SpineConfig } from '../config/schema.js';
import { SessionInUseError } from '../errors.js';
import type { storeFor } from '../store.js';
import { agentProjections, historyMode } from './projections.js';
import { interruptedFrom, RESUME_STATE, type ResumeState } from './resume-state.js';

/** Options of {@link openToResume}. */
export interface ResumeOpenOptions {
  /** The configured store. */
  store: ReturnType<typeof storeFor>;
  /** The session to resume. */
  id: string;
  /** The effective configuration (session dir, checkpoints). */
  config: SpineConfig;
  /** The workspace (absolute), for a session header without one. */
  cwd: string;
  /** Reports recovery notes and checks that could not run. */
  warn?: (message: string) => void;
}

/**
 * Opens a stored session to continue it, reading only its snapshot and the events after it (plus,
 * after a crash, the interrupted step): recovers subagents left running, answers interrupted
 * tool calls the workspace checkpoints can settle, then answers the rest as the session's own
 * recovery does.
 *
 * @throws a {@link SessionInUseError} when another process holds the session.
 */
export async function openToResume(options: ResumeOpenOptions): Promise<Session> {
  const { store, id } = options;
  const warn = options.warn ?? (() => {});
  let session = await openUnrecovered(options);
  try {
    if (resumeState(session).children.length > 0) {
      // Rare (a crash while a subagent ran): child recovery opens the parent itself.
      await session.close();
      // Their interrupted calls are verified against the parent's checkpoint first.
      const { answerChildInterruptedCalls } = await import('../agents/verify-child.js');
      await answerChildInterruptedCalls({ ...options, warn });
      const { recoverChildrenForResume } = await import('../agents/tree.js');
      await recoverChildrenForResume(store, id, warn);
      session = await openUnrecovered(options);
    }
    const from = interruptedFrom(resumeState(session));
    if (from !== undefined) await answerVerifiable(session, from, options, warn);
    await session.recover();
    return session;
  } catch (error) {
    await session.close().catch(() => {});
    throw error;
  }
}

function resumeState(session: Session): ResumeState {
  return session.projection<ResumeState>(RESUME_STATE.name);
}

async function answerVerifiable(
  session: Session,
  from: number,
  options: ResumeOpenOptions,
  warn: (message: string) => void,
): Promise<void> {
  try {
    const { answerInterruptedCallsIn } = await import('../rewind/recovery.js');
    await answerInterruptedCallsIn(session, from, options);
  } catch (error) {
    // Only costs the check: the session's own recovery answers "outcome unknown".
    warn(`could not verify interrupted tool calls: ${(error as Error).message}`);
  }
}

/** The session opened for writing with the agent's projections and without its own recovery. */
async function openUnrecovered(options: ResumeOpenOptions): Promise<Session> {
  try {
    return await Session.open({
      store: options.store,
      id: options.id,
      history: historyMode(),
      projections: await agentProjections(),
      recover: false,
    });
  } catch (error) {
    if (SpineError.isInstance(error) && error.code === 'SESSION_LOCKED') {
      const pid = (error as { pid?: unknown }).pid;
      throw new SessionInUseError({
        sessionId: options.id,
        dir: options.config.sessionDir,
        ...(typeof pid === 'number' ? { pid } : {}),
        cause: error,
      });
    }
    throw error;
  }
}
