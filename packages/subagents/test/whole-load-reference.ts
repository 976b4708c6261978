// The whole-load implementations the streamed ones replaced (as of 7780898), kept as the
// reference the equality tests compare with: every session opened fully, events() scanned.

import { replay } from '@spine/agent-loop';
import {
  type AssistantMessageBody,
  type ChildEndBody,
  type ChildEndReason,
  outcomeUnknownText,
  type SessionEvent,
  type SessionStore,
  type ToolResultBody,
  type TurnEndBody,
} from '@spine/protocol';
import { Session } from '@spine/session-log';
import { type ChangeToolNames, childChanges, usageWithChildren } from '../src/child-record.js';
import { ChildSessionMissingError } from '../src/errors.js';
import { renderChildResult } from '../src/render.js';
import {
  type ChildLink,
  childLinks,
  type TreeReplayEntry,
  type TreeReplayReport,
} from '../src/tree.js';

/** One child {@link recoverChildren} closed. */
export interface RecoveredChild {
  /** The child session. */
  sessionId: string;
  /** The parent's `task` call it answered. */
  toolCallId: string;
  /** `completed` when the child's log shows its turn finished, else `unknown`. */
  reason: ChildEndReason;
  /** True when the parent had no result for the call and one was written from the child's log. */
  answered: boolean;
}

interface ChildState {
  reason: ChildEndReason;
  text: string;
  steps: number;
  events: readonly SessionEvent[];
}

/** Closes a child's open turn (`turn/end` interrupted) and reads how it ended. */
async function closeChild(store: SessionStore, id: string): Promise<ChildState> {
  const session = await Session.open({ store, id });
  try {
    let openTurn: number | undefined;
    let lastEnd: TurnEndBody | undefined;
    let lastStep = 0;
    let text = '';
    for (const event of session.events()) {
      if (event.type === 'turn/start') {
        openTurn = event.turn;
        lastEnd = undefined;
        text = '';
      } else if (event.type === 'turn/end') {
        openTurn = undefined;
        lastEnd = event.body as TurnEndBody;
      } else if (event.type === 'assistant/message') {
        const body = event.body as AssistantMessageBody;
        text = body.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      }
      if (event.step !== undefined && event.turn !== undefined) lastStep = event.step;
    }
    if (openTurn !== undefined) {
      session.append('turn/end', { reason: 'interrupted', steps: lastStep } satisfies TurnEndBody, {
        turn: openTurn,
        step: lastStep,
      });
      await session.flush();
    }
    const completed = openTurn === undefined && lastEnd?.reason === 'completed';
    return {
      reason: completed ? 'completed' : 'unknown',
      text: completed ? text : '',
      steps: lastEnd?.steps ?? lastStep,
      events: session.events(),
    };
  } finally {
    await session.close();
  }
}

/**
 * After a crash, closes every child a session started but never recorded the end of, before the
 * session itself is reopened for work: each such child (its own orphans first) gets its tool calls
 * answered and its open turn closed with `turn/end` `interrupted`; the parent gets the child's
 * outcome as the `task` call's result when it had none (the child's final answer when its log
 * shows the turn completed, "outcome unknown" with the child's record otherwise) and an
 * `agent/child/end`. No child is left open and no `task` call without a result.
 *
 * @example
 * ```ts
 * await recoverChildren(store, sessionId); // before Session.open for the resumed run
 * const session = await Session.open({ store, id: sessionId });
 * ```
 */
export async function wholeLoadRecoverChildren(
  store: SessionStore,
  sessionId: string,
  options: { changeTools?: ChangeToolNames } = {},
): Promise<RecoveredChild[]> {
  const first = await Session.open({ store, id: sessionId, readOnly: true });
  const firstEvents = first.events();
  // In the parent's call order (tool/started is written in call order), so the results are too.
  const startedAt = new Map<string, number>();
  for (const event of firstEvents)
    if (event.type === 'tool/started')
      startedAt.set((event.body as { toolCallId: string }).toolCallId, event.seq);
  const orphans = childLinks(firstEvents)
    .filter((link) => !link.end)
    .sort(
      (a, b) =>
        (startedAt.get(a.start.toolCallId) ?? a.startSeq) -
        (startedAt.get(b.start.toolCallId) ?? b.startSeq),
    );
  await first.close();
  if (orphans.length === 0) return [];
  const parent = await Session.open({ store, id: sessionId, recover: false });
  const recovered: RecoveredChild[] = [];
  try {
    const events = parent.events();
    for (const link of orphans) {
      const { sessionId: childId, toolCallId } = link.start;
      // A crash between agent/child/start and the child's creation leaves no child session.
      const exists = await store.exists(childId);
      if (exists) await wholeLoadRecoverChildren(store, childId, options);
      const state: ChildState = exists
        ? await closeChild(store, childId)
        : { reason: 'unknown', text: '', steps: 0, events: [] };
      const changes = childChanges(state.events, options.changeTools);
      const usage = usageWithChildren(state.events);
      const started = events.find(
        (event) =>
          event.type === 'tool/started' &&
          (event.body as { toolCallId?: string }).toolCallId === toolCallId,
      );
      const hasResult = events.some(
        (event) =>
          event.type === 'tool/result' && (event.body as ToolResultBody).toolCallId === toolCallId,
      );
      if (!hasResult && started) {
        const at = {
          ...(started.turn === undefined ? {} : { turn: started.turn }),
          ...(started.step === undefined ? {} : { step: started.step }),
        };
        const rendered = renderChildResult({
          child: {
            sessionId: childId,
            toolCallId,
            profile: { name: link.start.profile, description: '', prompt: '', source: 'log' },
            description: link.start.description,
            depth: link.start.depth,
            sandbox: 'read-only',
          },
          reason: state.reason,
          text: state.text,
          steps: state.steps,
          changes,
          usage,
          error: 'the process stopped while the subagent ran',
        });
        const body: ToolResultBody =
          state.reason === 'completed'
            ? {
                toolCallId,
                toolName: 'task',
                content: rendered.content,
                isError: false,
                outcome: 'ok',
              }
            : {
                toolCallId,
                toolName: 'task',
                content: `${outcomeUnknownText('the process stopped')}\n${rendered.content.slice(rendered.content.lastIndexOf('['))}`,
                isError: true,
                outcome: 'unknown',
              };
        if (rendered.meta) body.meta = rendered.meta;
        parent.append('tool/result', body, { ...at, surfaceOp: { op: 'append' } });
      }
      const end: ChildEndBody = {
        sessionId: childId,
        toolCallId,
        reason: state.reason,
        steps: state.steps,
        usage,
        files: changes.files,
        commands: changes.commands,
        ...(state.reason === 'completed'
          ? {}
          : { error: 'the process stopped while the subagent ran' }),
      };
      const last = parent.get(parent.lastSeq);
      parent.append('agent/child/end', end, {
        ...(last?.turn === undefined ? {} : { turn: last.turn }),
        ...(last?.step === undefined ? {} : { step: last.step }),
      });
      recovered.push({
        sessionId: childId,
        toolCallId,
        reason: state.reason,
        answered: !hasResult && started !== undefined,
      });
    }
    await parent.flush();
  } finally {
    await parent.close();
  }
  return recovered;
}

/** replayTree before streaming: each session opened fully and replayed with `replay`. */
export async function wholeLoadReplayTree(
  store: SessionStore,
  sessionId: string,
): Promise<TreeReplayReport> {
  const sessions: TreeReplayEntry[] = [];
  const visit = async (
    id: string,
    depth: number,
    parentId?: string,
    link?: ChildLink,
  ): Promise<void> => {
    const session = await Session.open({ store, id, readOnly: true });
    try {
      const problems: string[] = [];
      if (link && parentId) {
        const parent = session.header.parent;
        if (
          parent?.sessionId !== parentId ||
          parent.atSeq !== link.startSeq ||
          parent.toolCallId !== link.start.toolCallId
        )
          problems.push(
            `header parent link ${JSON.stringify(parent ?? null)} does not match ${parentId} seq ${link.startSeq} call ${link.start.toolCallId}`,
          );
        if (!link.end) problems.push('the parent has no agent/child/end for this child');
      }
      sessions.push({ sessionId: id, depth, report: replay(session), problems });
      for (const child of childLinks(session.events())) {
        if (!(await store.exists(child.start.sessionId)))
          throw new ChildSessionMissingError({ parentId: id, childId: child.start.sessionId });
        await visit(child.start.sessionId, depth + 1, id, child);
      }
    } finally {
      await session.close();
    }
  };
  await visit(sessionId, 0);
  return {
    ok: sessions.every((entry) => entry.report.ok && entry.problems.length === 0),
    sessions,
  };
}
