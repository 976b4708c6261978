// Subagents as the client sees them: the parent's `task` call carries its child session's id in
// `_meta` (from `agent/child/start`, so a live turn and a load show the same link) and, while
// the child works, its progress as the call's content. A client opens the child with
// `session/load` of that id.
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { ChildStartBody } from '@spine/protocol';
import { textContent } from './tool-calls.js';

/** `_meta` key of a `task` call's child session id. */
export const CHILD_SESSION_META = 'spine.dev/childSessionId';

/** Progress lines kept per child (the latest; the result replaces them). */
const MAX_PROGRESS_LINES = 50;

/** The `_meta` that links a call to its child session. */
export function childMeta(childSessionId: string): Record<string, unknown> {
  return { [CHILD_SESSION_META]: childSessionId };
}

/** The first line shown for a child: its profile, task and session. */
function heading(body: ChildStartBody): string {
  return `subagent ${body.profile}: ${body.description} (session ${body.sessionId})`;
}

/** The update of a recorded `agent/child/start`: the parent call, linked to its child. */
export function childStartUpdate(body: ChildStartBody): SessionUpdate {
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: body.toolCallId,
    content: [textContent(heading(body))],
    _meta: childMeta(body.sessionId),
  };
}

/** The children of a session's open `task` calls, with their live progress. */
export class ChildCalls {
  readonly #children = new Map<string, { body: ChildStartBody; lines: string[] }>();

  /** Records a child's start; returns its update. */
  start(body: ChildStartBody): SessionUpdate {
    this.#children.set(body.toolCallId, { body, lines: [] });
    return childStartUpdate(body);
  }

  /** A progress line of call `toolCallId`'s child; undefined when the call has no child. */
  progress(toolCallId: string, message: string): SessionUpdate | undefined {
    const child = this.#children.get(toolCallId);
    if (!child) return undefined;
    child.lines = [...child.lines, message].slice(-MAX_PROGRESS_LINES);
    return {
      sessionUpdate: 'tool_call_update',
      toolCallId,
      content: [textContent([heading(child.body), ...child.lines].join('\n'))],
      _meta: childMeta(child.body.sessionId),
    };
  }

  /** Forgets call `toolCallId`; returns the `_meta` its result update keeps, if it had a child. */
  end(toolCallId: string): Record<string, unknown> | undefined {
    const child = this.#children.get(toolCallId);
    this.#children.delete(toolCallId);
    return child ? childMeta(child.body.sessionId) : undefined;
  }
}
