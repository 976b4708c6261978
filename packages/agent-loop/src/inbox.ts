import { randomUUID } from 'node:crypto';
import type { InboxItem, InboxQueue, InboxSplicedBody, SessionLog } from '@spine/protocol';
import { foldedState, inboxFold } from './projections.js';

/**
 * The agent's two input queues, `next-turn` and `next-step`. Every change is appended as an
 * `agent/inbox/spliced` event, and the queues are rebuilt from those events on open, so input
 * that was received but not yet consumed survives a restart. Consumption writes the
 * `user/message` first (its `meta.inboxId` names the item) and the splice second; restoring
 * drops items whose message exists, so a crash between the two neither loses nor repeats input.
 */
export class Inbox {
  readonly #session: SessionLog;
  /**
   * Each queue as the log's splices left it. After a crash between a `user/message` and its
   * consume splice, the consumed items are still here (`ghost`): they are never handed out, but
   * the next splice deletes them along, so every recorded position matches the queue a reader
   * of the log rebuilds (positions counted without them would shift every later splice).
   */
  readonly #queues: Record<InboxQueue, QueuedItem[]> = { 'next-turn': [], 'next-step': [] };
  readonly #live: Record<InboxQueue, InboxItem[] | undefined> = {
    'next-turn': undefined,
    'next-step': undefined,
  };

  /**
   * Restores both queues from `session` (its `agent-loop/inbox` projection when registered).
   *
   * @throws a {@link PartialHistoryError} for a lazily opened session without the projection.
   */
  constructor(session: SessionLog) {
    this.#session = session;
    const state = foldedState(session, inboxFold);
    const consumed = new Set(state.consumed);
    for (const queue of ['next-turn', 'next-step'] as const) {
      this.#queues[queue] = state.queues[queue].map((item) => ({
        item,
        ghost: consumed.has(item.id),
      }));
    }
  }

  /** The items waiting in `queue`, oldest first. */
  items(queue: InboxQueue): readonly InboxItem[] {
    this.#live[queue] ??= this.#queues[queue].filter((q) => !q.ghost).map((q) => q.item);
    return this.#live[queue];
  }

  /** How many items wait in `queue`. */
  size(queue: InboxQueue): number {
    return this.items(queue).length;
  }

  /** Appends an input to `queue` and records the splice. */
  push(queue: InboxQueue, content: string): InboxItem {
    const item: InboxItem = { id: randomUUID(), content };
    const list = this.#queues[queue];
    this.#record({ queue, start: list.length, deleteCount: 0, insert: [item], reason: 'enqueue' });
    list.push({ item, ghost: false });
    this.#live[queue] = undefined;
    return item;
  }

  /**
   * Removes the first `count` items of `queue` after their `user/message` events were
   * written, and records the splice (which also removes consumed items a crash left before them).
   */
  consumed(queue: InboxQueue, count: number): void {
    if (count <= 0) return;
    const list = this.#queues[queue];
    let end = 0;
    for (let taken = 0; end < list.length && taken < count; end += 1) {
      if (!list[end]?.ghost) taken += 1;
    }
    this.#record({ queue, start: 0, deleteCount: end, insert: [], reason: 'consume' });
    list.splice(0, end);
    this.#live[queue] = undefined;
  }

  /** Empties `queue` (recorded). */
  clear(queue: InboxQueue): void {
    const count = this.#queues[queue].length;
    if (count === 0) return;
    this.#record({ queue, start: 0, deleteCount: count, insert: [], reason: 'clear' });
    this.#queues[queue] = [];
    this.#live[queue] = undefined;
  }

  #record(body: InboxSplicedBody): void {
    this.#session.append('agent/inbox/spliced', body);
  }
}

interface QueuedItem {
  item: InboxItem;
  /** Consumed before a crash cut off its splice: not handed out, deleted by the next splice. */
  ghost: boolean;
}
