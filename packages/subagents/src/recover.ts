import {
  type AssistantMessageBody,
  type ChildEndBody,
  type ChildEndReason,
  outcomeUnknownText,
  type SessionEvent,
  type SessionStore,
  type ToolResultBody,
  type TurnEndBody,
  type Usage,
} from '@spine/protocol';
import { Session } from '@spine/session-log';
import {
  ChangesFold,
  type ChangeToolNames,
  type ChildChanges,
  childChanges,
  UsageFold,
  usageWithChildren,
} from './child-record.js';
import { type ChildResultInput, renderChildRecord, renderChildResult } from './render.js';
import { type ChildLink, LinkFold, openToRead } from './tree.js';

/** A child that never got a session: nothing changed, nothing used. */
function nothingRecorded(): { changes: ChildChanges; usage: Usage } {
  return { changes: childChanges([]), usage: usageWithChildren([]) };
}

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
  changes: ChildChanges;
  usage: Usage;
}

/**
 * Closes a child's open turn (`turn/end` interrupted) and reads how it ended: the child is
 * opened lazily and its log streamed once (what a full open's recovery appended included).
 */
async function closeChild(
  store: SessionStore,
  id: string,
  changeTools: ChangeToolNames | undefined,
): Promise<ChildState> {
  const session = await Session.open({ store, id, history: 'lazy', snapshots: false });
  try {
    let openTurn: number | undefined;
    let lastEnd: TurnEndBody | undefined;
    let lastStep = 0;
    let text = '';
    const changes = new ChangesFold(changeTools);
    const usage = new UsageFold();
    for await (const event of session.readEvents({ fromSeq: 1 })) {
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
      changes.add(event);
      usage.add(event);
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
      changes: changes.result,
      usage: usage.usage,
    };
  } finally {
    await session.close();
  }
}

/** What the parent recorded of one `task` call: its `tool/started` and whether it has a result. */
interface CallRecord {
  started?: SessionEvent;
  /** Seq of its last `tool/started` (the order the children are closed in). */
  startedSeq?: number;
  hasResult: boolean;
}

/** The parent's children without an `agent/child/end`, in the parent's call order. */
async function openChildren(
  store: SessionStore,
  sessionId: string,
): Promise<{ orphans: ChildLink[]; calls: Map<string, CallRecord> }> {
  const reader = await openToRead(store, sessionId);
  try {
    const links = new LinkFold();
    for await (const event of reader.readEvents({ fromSeq: 1, types: LinkFold.TYPES }))
      links.add(event);
    const open = links.links.filter((link) => !link.end);
    const calls = new Map<string, CallRecord>();
    if (open.length === 0) return { orphans: [], calls };
    for (const link of open) calls.set(link.start.toolCallId, { hasResult: false });
    const types = ['tool/started', 'tool/result'];
    for await (const event of reader.readEvents({ fromSeq: 1, types })) {
      const record = calls.get((event.body as { toolCallId?: string }).toolCallId ?? '');
      if (!record) continue;
      if (event.type === 'tool/result') record.hasResult = true;
      else {
        record.started ??= event;
        record.startedSeq = event.seq;
      }
    }
    // tool/started is written in call order, so the results are too.
    const at = (link: ChildLink): number =>
      calls.get(link.start.toolCallId)?.startedSeq ?? link.startSeq;
    return { orphans: open.sort((a, b) => at(a) - at(b)), calls };
  } finally {
    await reader.close();
  }
}

/**
 * After a crash, closes every child a session started but never recorded the end of, before the
 * session itself is reopened for work: each such child (its own orphans first) gets its tool calls
 * answered and its open turn closed with `turn/end` `interrupted`; the parent gets the child's
 * outcome as the `task` call's result when it had none (the child's final answer when its log
 * shows the turn completed, "outcome unknown" with the child's record otherwise) and an
 * `agent/child/end`. No child is left open and no `task` call without a result. The logs are
 * streamed from the store (sessions are opened lazily), never held whole.
 *
 * @example
 * ```ts
 * await recoverChildren(store, sessionId); // before Session.open for the resumed run
 * const session = await Session.open({ store, id: sessionId });
 * ```
 */
export async function recoverChildren(
  store: SessionStore,
  sessionId: string,
  options: { changeTools?: ChangeToolNames } = {},
): Promise<RecoveredChild[]> {
  const { orphans, calls } = await openChildren(store, sessionId);
  if (orphans.length === 0) return [];
  const parent = await Session.open({
    store,
    id: sessionId,
    recover: false,
    history: 'lazy',
    snapshots: false,
  });
  const recovered: RecoveredChild[] = [];
  try {
    for (const link of orphans) {
      const { sessionId: childId, toolCallId } = link.start;
      // A crash between agent/child/start and the child's creation leaves no child session.
      const exists = await store.exists(childId);
      if (exists) await recoverChildren(store, childId, options);
      const state: ChildState = exists
        ? await closeChild(store, childId, options.changeTools)
        : { reason: 'unknown', text: '', steps: 0, ...nothingRecorded() };
      const { changes, usage } = state;
      const { started, hasResult } = calls.get(toolCallId) ?? { hasResult: false };
      if (!hasResult && started) {
        const at = {
          ...(started.turn === undefined ? {} : { turn: started.turn }),
          ...(started.step === undefined ? {} : { step: started.step }),
        };
        const input: ChildResultInput = {
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
        };
        const rendered = renderChildResult(input);
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
                content: `${outcomeUnknownText('the process stopped')}\n${renderChildRecord(input)}`,
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
