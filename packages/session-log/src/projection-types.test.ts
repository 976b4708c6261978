import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue, SessionEvent, SessionStore } from '@spine/protocol';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidEventError } from './errors.js';
import { Session } from './session.js';
import { createJsonlStore } from './store-jsonl.js';
import { createMemoryStore } from './store-memory.js';
import type { SessionProjection } from './types.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

type Tally = { [key: string]: JsonValue };

/** Tallies user and tool events (and the seqs folded); ignores every other type itself. */
function tally(name: string, version: number, types?: readonly string[]): SessionProjection<Tally> {
  const seen = new Set(['user/message', 'tool/started']);
  return {
    name,
    version,
    ...(types ? { types } : {}),
    initial: () => ({ seqs: [], wrongTypes: 0 }),
    apply(state, event: SessionEvent) {
      // A typed fold must be handed only its types; the untyped twin sees every event.
      if (types && !types.includes(event.type)) state.wrongTypes = (state.wrongTypes as number) + 1;
      if (!seen.has(event.type)) return state;
      (state.seqs as number[]).push(event.seq);
      state[event.type] = ((state[event.type] as number | undefined) ?? 0) + 1;
      return state;
    },
  };
}

const TYPES = ['user/message', 'tool/started'];
type Op = 'user' | 'assistant' | 'turn' | 'started' | 'note' | 'snapshot' | 'reopen';
const opArb = fc.constantFrom<Op>(
  'user',
  'assistant',
  'turn',
  'started',
  'note',
  'snapshot',
  'reopen',
);

async function apply(session: Session, op: Op, index: number): Promise<void> {
  if (op === 'user')
    session.append(
      'user/message',
      { content: `u${index}`, source: 'user' },
      { surfaceOp: { op: 'append' } },
    );
  else if (op === 'assistant')
    session.append(
      'assistant/message',
      { content: [{ type: 'text', text: `a${index}` }], finishReason: 'stop' },
      { surfaceOp: { op: 'append' } },
    );
  else if (op === 'turn') session.append('turn/start', {});
  else if (op === 'started')
    session.append('tool/started', { toolCallId: `c${index}`, toolName: 'x', arguments: '{}' });
  else if (op === 'note') session.append('step/start', {});
  else if (op === 'snapshot') await session.snapshot();
}

function pair(version: number): SessionProjection[] {
  return [tally('typed', version, TYPES), tally('all', version)] as unknown as SessionProjection[];
}

/** The typed fold's state equals its untyped twin's, and it never saw another type. */
function expectAgree(session: Session): void {
  const typed = session.projection<Tally>('typed');
  expect(typed.wrongTypes).toBe(0);
  expect({ ...typed, wrongTypes: 0 }).toEqual({
    ...session.projection<Tally>('all'),
    wrongTypes: 0,
  });
}

describe('projection types', () => {
  it('a projection declaring types folds only those and ends in the state of folding every event (appends, snapshots, full and lazy reopen, refold)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 40 }),
        fc.constantFrom('jsonl', 'memory'),
        async (ops, kind) => {
          let dir: string | undefined;
          let store: SessionStore;
          if (kind === 'jsonl') {
            dir = mkdtempSync(join(tmpdir(), 'spine-projection-types-'));
            dirs.push(dir);
            store = createJsonlStore({ dir, fsync: 'never' });
          } else store = createMemoryStore();
          const options = { store, snapshots: { afterEvents: 5 } };
          let session = await Session.create({ ...options, id: 'p', projections: pair(1) });
          try {
            for (const [index, op] of ops.entries()) {
              if (op === 'reopen') {
                await session.close();
                session = await Session.open({
                  ...options,
                  id: 'p',
                  history: 'lazy',
                  projections: pair(1),
                });
              } else await apply(session, op, index);
              expectAgree(session);
            }
          } finally {
            await session.close();
          }
          for (const history of ['full', 'lazy'] as const) {
            // Version 2: a snapshot's states are refolded from the log.
            for (const version of [1, 2]) {
              const reopened = await Session.open({
                store,
                id: 'p',
                readOnly: true,
                history,
                projections: pair(version),
              });
              try {
                expectAgree(reopened);
                const user = reopened.events().filter((event) => event.type === 'user/message');
                if (history === 'full')
                  expect(reopened.projection<Tally>('typed')['user/message'] ?? 0).toBe(
                    user.length,
                  );
              } finally {
                await reopened.close();
              }
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it('rejects types that are not an array of type names', async () => {
    for (const types of ['user/message', [1], null]) {
      const projection = { ...tally('bad', 1), types } as unknown as SessionProjection;
      await expect(
        Session.create({ store: createMemoryStore(), projections: [projection] }),
      ).rejects.toThrow(InvalidEventError);
    }
  });
});
