import type { SessionEvent } from '@spine/protocol';
import { createMemoryStore } from '@spine/session-log';
import { childLinks } from '@spine/subagents';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasOpenChildren } from './read.js';

const AT = '2026-12-01T12:00:00.000Z';

describe('hasOpenChildren', () => {
  it('is true exactly when childLinks finds a child without its end', async () => {
    const step = fc.record({
      type: fc.constantFrom('agent/child/start', 'agent/child/end', 'turn/start'),
      child: fc.constantFrom('a', 'b', 'c'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
        const store = createMemoryStore();
        const header = {
          seq: 1,
          type: 'session/header',
          at: AT,
          body: { formatVersion: 1, sessionId: 'p', createdAt: AT },
        } as SessionEvent;
        const events = steps.map(
          ({ type, child }, index) =>
            ({
              seq: index + 2,
              type,
              at: AT,
              body: { sessionId: child, toolCallId: `call-${child}`, reason: 'completed' },
            }) as SessionEvent,
        );
        const opened = await store.create(header);
        opened.append(events);
        await opened.flush();
        await opened.close();
        const orphans = childLinks([header, ...events]).some((link) => !link.end);
        expect(await hasOpenChildren(store, 'p')).toBe(orphans);
      }),
      { numRuns: 300 },
    );
  });
});
