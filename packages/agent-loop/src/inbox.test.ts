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
});
