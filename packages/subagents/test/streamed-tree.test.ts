import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionEvent, SessionStore } from '@spine/protocol';
import { createJsonlStore } from '@spine/session-log';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ChildSessionMissingError,
  type ChildTreeNode,
  readChildTree,
  readSessionTree,
  recoverChildren,
  replayTree,
  type SessionTreeNode,
} from '../src/index.js';
import { type NodeSpec, treeSpec, writeTree } from './tree-gen.js';
import { wholeLoadRecoverChildren, wholeLoadReplayTree } from './whole-load-reference.js';

// The streamed readers (lazy opens, readEvents by type, replayStream) against the whole-load
// implementations they replaced, on generated trees: links, usage, replay reports and what
// recovery writes must be the same.

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spine-streamed-tree-'));
  roots.push(dir);
  return dir;
}

/** readSessionTree's node without the events: what readChildTree must give. */
function withoutEvents(node: SessionTreeNode): ChildTreeNode {
  const copy: ChildTreeNode = {
    sessionId: node.sessionId,
    depth: node.depth,
    usage: node.usage,
    children: node.children.map(withoutEvents),
  };
  if (node.link) copy.link = node.link;
  return copy;
}

async function allEvents(store: SessionStore, id: string): Promise<unknown[]> {
  const events: unknown[] = [];
  for await (const event of store.readRange(id, { fromSeq: 1 })) {
    const { at: _at, ...rest } = event as SessionEvent;
    events.push(rest);
  }
  return events;
}

async function sessionIds(store: SessionStore): Promise<string[]> {
  return (await store.list()).map((summary) => summary.id).sort();
}

/** A promise's outcome as a value, so a throw compares like a result. */
async function settle<T>(promise: Promise<T>): Promise<{ value: T } | { error: unknown }> {
  try {
    return { value: await promise };
  } catch (error) {
    return { error };
  }
}

const RUNS = { numRuns: 30, endOnFailure: true } as const;

describe('streamed tree readers equal the whole-load ones', () => {
  it('readChildTree is readSessionTree without the events; replayTree equals the full-open replay (or both throw alike)', async () => {
    let missing = 0;
    await fc.assert(
      fc.asyncProperty(treeSpec, async (spec: NodeSpec) => {
        const store = createJsonlStore({ dir: tempDir(), fsync: 'never' });
        const id = await writeTree(store, spec);
        const whole = await settle(readSessionTree(store, id));
        const expected = 'value' in whole ? { value: withoutEvents(whole.value) } : whole;
        expect(await settle(readChildTree(store, id))).toEqual(expected);
        const replayed = await settle(wholeLoadReplayTree(store, id));
        expect(await settle(replayTree(store, id))).toEqual(replayed);
        if ('error' in replayed) {
          expect(replayed.error).toBeInstanceOf(ChildSessionMissingError);
          missing++;
        }
      }),
      RUNS,
    );
    expect(missing).toBeGreaterThan(0); // the generator reached the missing-child case
  }, 240_000);

  it('recoverChildren reports and writes what the whole-load recovery does, in every session', async () => {
    let recovered = 0;
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(treeSpec, async (spec: NodeSpec) => {
        const dir = tempDir();
        const store = createJsonlStore({ dir, fsync: 'never' });
        const id = await writeTree(store, spec);
        const copyDir = tempDir();
        cpSync(dir, copyDir, { recursive: true });
        const copy = createJsonlStore({ dir: copyDir, fsync: 'never' });
        const expected = await wholeLoadRecoverChildren(copy, id);
        expect(await recoverChildren(store, id)).toEqual(expected);
        recovered += expected.length;
        answered += expected.filter((child) => child.answered).length;
        const ids = await sessionIds(store);
        expect(ids).toEqual(await sessionIds(copy));
        for (const each of ids)
          expect(await allEvents(store, each)).toEqual(await allEvents(copy, each));
        // Nothing is left to recover, by either.
        expect(await recoverChildren(store, id)).toEqual([]);
      }),
      RUNS,
    );
    // The generator reached children to close, with and without a result to write.
    expect(recovered).toBeGreaterThan(answered);
    expect(answered).toBeGreaterThan(0);
  }, 300_000);
});
