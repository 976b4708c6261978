import { type ReplayReport, replay } from '@spine/agent-loop';
import type {
  ChildEndBody,
  ChildStartBody,
  SessionEvent,
  SessionStore,
  Usage,
} from '@spine/protocol';
import { Session } from '@spine/session-log';
import { usageWithChildren } from './child-record.js';
import { ChildSessionMissingError } from './errors.js';

/** One child a session links to, read from its `agent/child/start` and `agent/child/end` events. */
export interface ChildLink {
  /** The child's `agent/child/start` body. */
  start: ChildStartBody;
  /** Seq of that event in the parent. */
  startSeq: number;
  /** The child's `agent/child/end` body; absent while it runs or when a crash left it open. */
  end?: ChildEndBody;
}

/**
 * The children a session's log links to, in start order.
 *
 * @example
 * ```ts
 * for (const link of childLinks(session.events())) console.log(link.start.sessionId, link.end?.reason);
 * ```
 */
export function childLinks(events: readonly SessionEvent[]): ChildLink[] {
  const links: ChildLink[] = [];
  const byId = new Map<string, ChildLink>();
  for (const event of events) {
    if (event.type === 'agent/child/start') {
      const link: ChildLink = { start: event.body as ChildStartBody, startSeq: event.seq };
      links.push(link);
      byId.set(link.start.sessionId, link);
    } else if (event.type === 'agent/child/end') {
      const body = event.body as ChildEndBody;
      const link = byId.get(body.sessionId);
      if (link) link.end = body;
    }
  }
  return links;
}

/** One session of a tree, read from the store. */
export interface SessionTreeNode {
  /** The session id. */
  sessionId: string;
  /** 0 for the root, 1 for its children … */
  depth: number;
  /** The link that led here (absent for the root). */
  link?: ChildLink;
  /** Its events. */
  events: readonly SessionEvent[];
  /** Its usage including every descendant's (as the `agent/child/end` events report it). */
  usage: Usage;
  /** Its children, in start order. */
  children: SessionTreeNode[];
}

/**
 * Reads a session and, recursively, every child it links to, from one store (read-only: no lock
 * is taken and nothing is repaired).
 *
 * @throws {ChildSessionMissingError} when a linked child is not in the store.
 */
export async function readSessionTree(
  store: SessionStore,
  sessionId: string,
): Promise<SessionTreeNode> {
  const read = async (id: string, depth: number, link?: ChildLink): Promise<SessionTreeNode> => {
    const session = await Session.open({ store, id, readOnly: true });
    const events = session.events();
    await session.close();
    const children: SessionTreeNode[] = [];
    for (const child of childLinks(events)) {
      if (!(await store.exists(child.start.sessionId)))
        throw new ChildSessionMissingError({ parentId: id, childId: child.start.sessionId });
      children.push(await read(child.start.sessionId, depth + 1, child));
    }
    const node: SessionTreeNode = {
      sessionId: id,
      depth,
      events,
      usage: usageWithChildren(events),
      children,
    };
    if (link) node.link = link;
    return node;
  };
  return read(sessionId, 0);
}

/** One session's verdict in {@link replayTree}. */
export interface TreeReplayEntry {
  /** The session id. */
  sessionId: string;
  /** 0 for the root. */
  depth: number;
  /** Its replay report. */
  report: ReplayReport;
  /**
   * Link problems: the child's header does not point back at this parent, seq and call, or the
   * parent's start has no end.
   */
  problems: string[];
}

/** What {@link replayTree} found. */
export interface TreeReplayReport {
  /** True when every session replays and every link is consistent both ways. */
  ok: boolean;
  /** One entry per session, root first, depth-first in start order. */
  sessions: TreeReplayEntry[];
}

/**
 * Verifies a session and all its children: each session's recorded requests are rebuilt from its
 * own log and checked by hash ({@link replay}), and each link is checked both ways (the parent's
 * `agent/child/start` names the child; the child's header names the parent, that event's seq and
 * the tool call id; the parent recorded how the child ended).
 *
 * @throws {ChildSessionMissingError} when a linked child is not in the store.
 * @example
 * ```ts
 * const report = await replayTree(store, parentId);
 * if (!report.ok) console.error(report.sessions.filter((entry) => !entry.report.ok));
 * ```
 */
export async function replayTree(
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
