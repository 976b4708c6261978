import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CheckpointStore,
  checkpointAt,
  createGitCheckpointStore,
  lastKnownSnapshot,
  type RewindTarget,
  rewindWorkspace,
} from '@spine/checkpoints';
import { createJsonlStore, Session } from '@spine/session-log';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkSeq } from './command.js';
import { rewindChoices } from './slash.js';

// rewindWorkspace, the REPL's picker and the fork point read a lazily opened session directly
// (its checkpoint events streamed by type), with no whole-log view: on random logs (turns,
// steps, checkpoints of every reason, restores, compactions, a snapshot anywhere) a lazy open
// rewinds (dry run, real git checkpoint store) exactly as a full open, and finds the checkpoint
// the whole-log function finds (the last known snapshot shows in the conflicts).

const roots: string[] = [];
const temp = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  roots.push(dir);
  return dir;
};
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

let checkpoints: CheckpointStore;
/** Real snapshot ids of the workspace in three states. */
const ids: string[] = [];

beforeAll(async () => {
  const workspace = temp('spine-lazy-rewind-ws-');
  checkpoints = createGitCheckpointStore({
    workspace,
    directory: temp('spine-lazy-rewind-cp-'),
  });
  mkdirSync(join(workspace, 'src'));
  for (const text of ['one\n', 'two "quoted"\n', 'three ✓\n']) {
    writeFileSync(join(workspace, 'src', 'a.ts'), text);
    ids.push((await checkpoints.checkpoint()).id);
  }
}, 120_000);

type Item =
  | { kind: 'checkpoint'; reason: 'step' | 'turn-end' | 'rewind'; id: number }
  | { kind: 'restored'; id: number }
  | { kind: 'step' }
  | { kind: 'turn' }
  | { kind: 'compact' }
  | { kind: 'snapshot' }
  | { kind: 'tool'; path: string };

const item: fc.Arbitrary<Item> = fc.oneof(
  fc.record({
    kind: fc.constant('checkpoint' as const),
    reason: fc.constantFrom(
      'step' as const,
      'step' as const,
      'turn-end' as const,
      'rewind' as const,
    ),
    id: fc.integer({ min: 0, max: 2 }),
  }),
  fc.record({ kind: fc.constant('restored' as const), id: fc.integer({ min: 0, max: 2 }) }),
  fc.constant({ kind: 'step' as const }),
  fc.constant({ kind: 'turn' as const }),
  fc.constant({ kind: 'compact' as const }),
  fc.constant({ kind: 'snapshot' as const }),
  fc.record({ kind: fc.constant('tool' as const), path: fc.constantFrom('src/a.ts', 'b.ts') }),
);

async function writeLog(dir: string, items: readonly Item[]): Promise<string> {
  const store = createJsonlStore({ dir, fsync: 'never' });
  const session = await Session.create({ store, snapshots: false });
  let turn = 1;
  let step = 1;
  let call = 0;
  session.append('turn/start', {}, { turn });
  session.append(
    'user/message',
    { content: `turn ${turn}\nmore`, source: 'user' },
    { turn, surfaceOp: { op: 'append' } },
  );
  for (const entry of items) {
    const at = { turn, step };
    if (entry.kind === 'checkpoint') {
      const id = ids[entry.id] as string;
      const changes = [{ path: 'src/a.ts', kind: 'modified' }];
      session.append(
        'workspace/checkpoint',
        { id, store: 'git', reason: entry.reason, scope: 'workspace', changes },
        at,
      );
    } else if (entry.kind === 'restored') {
      session.append(
        'workspace/restored',
        { target: ids[entry.id], targetSeq: 1, from: ids[0], reason: 'rewind', changes: [] },
        at,
      );
    } else if (entry.kind === 'step') {
      step++;
      session.append('step/start', {}, { turn, step });
    } else if (entry.kind === 'turn') {
      session.append('turn/end', { reason: 'completed', steps: step }, { turn });
      turn++;
      step = 1;
      session.append('turn/start', {}, { turn });
      session.append(
        'user/message',
        { content: `turn ${turn}`, source: 'user' },
        { turn, surfaceOp: { op: 'append' } },
      );
    } else if (entry.kind === 'compact') {
      const surface = session.surface();
      session.append(
        'user/message',
        { content: 'summary', source: 'compaction' },
        {
          surfaceOp: { op: 'replace', start: surface[0] as number, end: surface.at(-1) as number },
        },
      );
    } else if (entry.kind === 'snapshot') {
      await session.snapshot();
    } else {
      const id = `c${++call}`;
      const args = JSON.stringify({ path: entry.path });
      session.append(
        'assistant/message',
        {
          content: [{ type: 'tool-call', id, name: 'write', arguments: args }],
          finishReason: 'tool-calls',
        },
        { ...at, surfaceOp: { op: 'append' } },
      );
      session.append(
        'tool/result',
        {
          toolCallId: id,
          toolName: 'write',
          content: 'ok',
          isError: false,
          meta: { sourcePath: entry.path, postHash: 'sha256:x' },
        },
        { ...at, surfaceOp: { op: 'append' } },
      );
    }
  }
  await session.close();
  return session.id;
}

const target: fc.Arbitrary<RewindTarget> = fc.oneof(
  fc.record({ turn: fc.integer({ min: 0, max: 8 }) }),
  fc.record({ turn: fc.integer({ min: 1, max: 8 }), step: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ seq: fc.integer({ min: -2, max: 60 }) }),
);

describe('rewind on a lazily opened session', () => {
  it('plans, finds and lists what a full open does, reading no whole-log view', async () => {
    let withConflicts = 0;
    // Batches of 40 random cases until one reached files changed outside the agent (a conflict):
    // a batch without one (it happens) is not a failure, ten in a row are.
    for (let batch = 0; batch < 10 && withConflicts === 0; batch++) {
      await fc.assert(
        fc.asyncProperty(
          fc.array(item, { maxLength: 40 }),
          fc.array(target, { minLength: 1, maxLength: 4 }),
          async (items, targets) => {
            const dir = temp('spine-lazy-rewind-log-');
            const id = await writeLog(dir, items);
            const store = createJsonlStore({ dir, fsync: 'never' });
            const full = await Session.open({ store, id, readOnly: true });
            const lazy = await Session.open({ store, id, readOnly: true, history: 'lazy' });
            try {
              const events = full.events();
              for (const to of targets) {
                const fromFull = await rewindWorkspace({
                  session: full,
                  store: checkpoints,
                  to,
                  dryRun: true,
                });
                const fromLazy = await rewindWorkspace({
                  session: lazy,
                  store: checkpoints,
                  to,
                  dryRun: true,
                });
                expect(fromLazy).toEqual(fromFull);
                const found = checkpointAt(events, to);
                if (found === undefined) expect(fromLazy.status).toBe('not-found');
                else if (found === null)
                  expect(fromLazy).toEqual({ status: 'nothing-to-do', uncovered: [] });
                else {
                  // What the whole-log rewind computed: files changed since the last known snapshot
                  // that the restore would touch.
                  const plan = await checkpoints.restore(found.body.id, { dryRun: true });
                  const known = lastKnownSnapshot(events);
                  const outside = known ? await checkpoints.diff(known, plan.from) : [];
                  const touched = new Set(plan.changes.map((change) => change.path));
                  const conflicts = outside
                    .map((change) => change.path)
                    .filter((path) => touched.has(path))
                    .sort();
                  expect(fromLazy).toMatchObject({
                    status: 'dry-run',
                    checkpoint: found,
                    conflicts,
                  });
                  if (conflicts.length > 0) withConflicts++;
                }
                if (found) {
                  // forkSeq as it read the whole log: before the turn's start, else the checkpoint.
                  const start = events.find(
                    (event) =>
                      event.type === 'turn/start' && event.turn === (to as { turn?: number }).turn,
                  );
                  const expected =
                    'turn' in to && to.step === undefined && start ? start.seq - 1 : found.seq;
                  expect(await forkSeq(lazy, to, found.seq)).toBe(expected);
                }
              }
              expect(await rewindChoices(lazy.readEvents({ fromSeq: 1 }))).toEqual(
                await rewindChoices(events),
              );
            } finally {
              await full.close();
              await lazy.close();
            }
          },
        ),
        { numRuns: 40, endOnFailure: true },
      );
    }
    expect(withConflicts).toBeGreaterThan(0); // the generator reached outside changes
  }, 300_000);
});
