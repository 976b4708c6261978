import { type ReplayReport, replayStream } from '@spine/agent-loop';
import type {
  ChildEndBody,
  ChildStartBody,
  SessionEvent,
  SessionRange,
  SessionStore,
  Usage,
} from '@spine/protocol';
import { Session } from '@spine/session-log';
import { UsageFold, usageWithChildren } from './child-record.js';
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

/** {@link childLinks} one event at a time (a streamed log need not be held). */
export class LinkFold {
  /** The event types {@link LinkFold.add} reads. */
  static readonly TYPES = ['agent/child/start', 'agent/child/end'] as const;
  /** The links so far, in start order. */
  readonly links: ChildLink[] = [];
  readonly #byId = new Map<string, ChildLink>();

  add(event: SessionEvent): void {
    if (event.type === 'agent/child/start') {
      const link: ChildLink = { start: event.body as ChildStartBody, startSeq: event.seq };
      this.links.push(link);
      this.#byId.set(link.start.sessionId, link);
    } else if (event.type === 'agent/child/end') {
      const body = event.body as ChildEndBody;
      const link = this.#byId.get(body.sessionId);
      if (link) link.end = body;
    }
  }
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
  const fold = new LinkFold();
  for (const event of events) fold.add(event);
  return fold.links;
}

/**
 * Opens a stored session to read it without holding its log: lazily (header, surface and the
 * events since its snapshot), read-only, so `readEvents` streams the rest from the store. A log
 * of an older format is migrated in memory (the session then holds it, as a full open does).
 */
export function openToRead(store: SessionStore, id: string): Promise<Session> {
  return Session.open({ store, id, readOnly: true, history: 'lazy' });
}

/** One session of a tree, as {@link readChildTree} reads it: links and usage, not its events. */
export interface ChildTreeNode {
  /** The session id. */
  sessionId: string;
  /** 0 for the root, 1 for its children … */
  depth: number;
  /** The link that led here (absent for the root). */
  link?: ChildLink;
  /** Its usage including every descendant's (as the `agent/child/end` events report it). */
  usage: Usage;
  /** Its children, in start order. */
  children: ChildTreeNode[];
}

/** One session of a tree, read from the store with all its events. */
export interface SessionTreeNode extends ChildTreeNode {
  /** Its events. */
  events: readonly SessionEvent[];
  /** Its children, in start order. */
  children: SessionTreeNode[];
}

/**
 * Reads a session and, recursively, every child it links to, from one store (read-only: no lock
 * is taken and nothing is repaired), holding every event of every session: a rerun answers
 * children from them. {@link readChildTree} gives the same tree without the events.
 *
 * @throws a {@link ChildSessionMissingError} when a linked child is not in the store.
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
      await assertChildExists(store, id, child);
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

/**
 * The tree of {@link readSessionTree} without the events: each session is opened lazily and
 * only its `assistant/message` and `agent/child/*` events are streamed from the store, so memory
 * stays with the surfaces, not the logs (read-only: no lock is taken and nothing is repaired).
 *
 * @throws a {@link ChildSessionMissingError} when a linked child is not in the store.
 * @example
 * ```ts
 * const root = await readChildTree(store, id);
 * for (const child of root.children) console.log(child.sessionId, totalTokens(child.usage));
 * ```
 */
export async function readChildTree(
  store: SessionStore,
  sessionId: string,
): Promise<ChildTreeNode> {
  const read = async (id: string, depth: number, link?: ChildLink): Promise<ChildTreeNode> => {
    const session = await openToRead(store, id);
    const links = new LinkFold();
    const usage = new UsageFold();
    try {
      const types = [...LinkFold.TYPES, ...UsageFold.TYPES];
      for await (const event of session.readEvents({ fromSeq: 1, types })) {
        links.add(event);
        usage.add(event);
      }
    } finally {
      await session.close();
    }
    const children: ChildTreeNode[] = [];
    for (const child of links.links) {
      await assertChildExists(store, id, child);
      children.push(await read(child.start.sessionId, depth + 1, child));
    }
    const node: ChildTreeNode = { sessionId: id, depth, usage: usage.usage, children };
    if (link) node.link = link;
    return node;
  };
  return read(sessionId, 0);
}

async function assertChildExists(store: SessionStore, id: string, child: ChildLink): Promise<void> {
  if (!(await store.exists(child.start.sessionId)))
    throw new ChildSessionMissingError({ parentId: id, childId: child.start.sessionId });
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
 * own log, streamed from the store, and checked by hash (agent-loop's `replayStream`: each session
 * is opened lazily, so memory stays with its surface, not its log), and each link is checked both ways (the parent's
 * `agent/child/start` names the child; the child's header names the parent, that event's seq and
 * the tool call id; the parent recorded how the child ended).
 *
 * @throws a {@link ChildSessionMissingError} when a linked child is not in the store.
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
    const session = await openToRead(store, id);
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
      // One pass: the links are folded from the events replay streams.
      const links = new LinkFold();
      const tapped: Session = Object.create(session, {
        readEvents: {
          value: async function* (range: SessionRange): AsyncIterable<SessionEvent> {
            for await (const event of session.readEvents(range)) {
              links.add(event);
              yield event;
            }
          },
        },
      });
      sessions.push({ sessionId: id, depth, report: await replayStream(tapped), problems });
      for (const child of links.links) {
        await assertChildExists(store, id, child);
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
