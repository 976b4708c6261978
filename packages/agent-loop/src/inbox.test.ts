import { createMemoryStore, Session } from '@spine/session-log';
import { describe, expect, it } from 'vitest';
import { Inbox } from './inbox.js';

describe('Inbox', () => {
  it('rebuilds both queues from agent/inbox/spliced events', async () => {
    const session = await Session.create({ store: createMemoryStore() });
    const inbox = new Inbox(session);
    inbox.push('next-turn', 'a');
    inbox.push('next-step', 'b');
    inbox.push('next-turn', 'c');
    inbox.consumed('next-turn', 1);
    const restored = new Inbox(session);
    expect(restored.items('next-turn').map((item) => item.content)).toEqual(['c']);
    expect(restored.items('next-step').map((item) => item.content)).toEqual(['b']);
    restored.clear('next-step');
    expect(new Inbox(session).size('next-step')).toBe(0);
  });

  it('drops an item whose user/message was written before a crash cut off its splice', async () => {
    const session = await Session.create({ store: createMemoryStore() });
    const inbox = new Inbox(session);
    const item = inbox.push('next-turn', 'do the thing');
    inbox.push('next-turn', 'then this');
    session.append(
      'user/message',
      { content: item.content, source: 'user', meta: { inboxId: item.id } },
      { turn: 1, step: 0, surfaceOp: { op: 'append' } },
    );
    const restored = new Inbox(session);
    expect(restored.items('next-turn').map((queued) => queued.content)).toEqual(['then this']);
  });

  it('keeps recorded positions right after that crash: later pushes, consumes and clears replay to the same queues', async () => {
    const session = await Session.create({ store: createMemoryStore() });
    const before = new Inbox(session);
    const first = before.push('next-turn', 'one');
    before.push('next-turn', 'two');
    session.append(
      'user/message',
      { content: first.content, source: 'user', meta: { inboxId: first.id } },
      { turn: 1, step: 0, surfaceOp: { op: 'append' } },
    );
    // The process died here: no consume splice. The restarted agent goes on.
    const restarted = new Inbox(session);
    restarted.push('next-turn', 'three');
    restarted.consumed('next-turn', 1); // hands out "two"
    expect(restarted.items('next-turn').map((q) => q.content)).toEqual(['three']);
    expect(new Inbox(session).items('next-turn').map((q) => q.content)).toEqual(['three']);
    restarted.push('next-turn', 'four');
    expect(new Inbox(session).items('next-turn').map((q) => q.content)).toEqual(['three', 'four']);
    // A clear right after a restart removes the consumed item the crash left, too.
    const other = await Session.create({ store: createMemoryStore() });
    const a = new Inbox(other);
    const x = a.push('next-step', 'x');
    a.push('next-step', 'y');
    other.append(
      'user/message',
      { content: x.content, source: 'user', meta: { inboxId: x.id } },
      { turn: 1, step: 0, surfaceOp: { op: 'append' } },
    );
    const b = new Inbox(other);
    b.clear('next-step');
    b.push('next-step', 'z');
    expect(new Inbox(other).items('next-step').map((q) => q.content)).toEqual(['z']);
  });
});
