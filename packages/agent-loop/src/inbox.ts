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
  readonly #queues: Record<InboxQueue, InboxItem[]> = { 'next-turn': [], 'next-step': [] };

  /**
   * Restores both queues from `session` (its `agent-loop/inbox` projection when registered).
   *
   * @throws {PartialHistoryError} for a lazily opened session without the projection.
   */
  constructor(session: SessionLog) {
    this.#session = session;
    const state = foldedState(session, inboxFold);
    const consumed = new Set(state.consumed);
    for (const queue of ['next-turn', 'next-step'] as const) {
      this.#queues[queue] = state.queues[queue].filter((item) => !consumed.has(item.id));
    }
  }

  /** The items waiting in `queue`, oldest first. */
  items(queue: InboxQueue): readonly InboxItem[] {
    return this.#queues[queue];
  }

  /** How many items wait in `queue`. */
  size(queue: InboxQueue): number {
    return this.#queues[queue].length;
  }

  /** Appends an input to `queue` and records the splice. */
  push(queue: InboxQueue, content: string): InboxItem {
    const item: InboxItem = { id: randomUUID(), content };
    const list = this.#queues[queue];
    this.#record({ queue, start: list.length, deleteCount: 0, insert: [item], reason: 'enqueue' });
    list.push(item);
    return item;
  }

  /**
   * Removes the first `count` items of `queue` after their `user/message` events were
   * written, and records the splice.
   */
  consumed(queue: InboxQueue, count: number): void {
    if (count <= 0) return;
    this.#record({ queue, start: 0, deleteCount: count, insert: [], reason: 'consume' });
    this.#queues[queue].splice(0, count);
  }

  /** Empties `queue` (recorded). */
  clear(queue: InboxQueue): void {
    const count = this.#queues[queue].length;
    if (count === 0) return;
    this.#record({ queue, start: 0, deleteCount: count, insert: [], reason: 'clear' });
    this.#queues[queue] = [];
  }

  #record(body: InboxSplicedBody): void {
    this.#session.append('agent/inbox/spliced', body);
  }
}
