// A command interrupted in a step where other commands ran: the workspace diff against the step's
// checkpoint holds their changes too, so the check must not name them as this command's (a crash
// in a batch of `echo n >> count.txt` calls told the model the interrupted one had changed the
// file, and it did not run it again). Real git checkpoint store and workspace.
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionEvent } from '@spine/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { type CallIntent, createGitCheckpointStore, verifyInterruptedCalls } from '../src/index.js';

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await fs.rm(root, { recursive: true, force: true });
});

/** A workspace with a checkpoint taken before the step, and the step's events up to the crash. */
async function step(calls: Array<{ id: string; tool: string; finished: boolean }>) {
  const root = await fs.mkdtemp(join(tmpdir(), 'spine-interrupted-'));
  roots.push(root);
  const workspace = join(root, 'ws');
  await fs.mkdir(workspace);
  await fs.writeFile(join(workspace, 'kept.txt'), 'before\n');
  const store = createGitCheckpointStore({ workspace, directory: join(root, 'store') });
  const checkpoint = await store.checkpoint();
  const at = { turn: 1, step: 1, at: '2026-12-08T00:00:00.000Z' };
  let seq = 1;
  const events = [
    { seq: seq++, type: 'step/start', body: {}, ...at },
    { seq: seq++, type: 'workspace/checkpoint', body: { id: checkpoint.id }, ...at },
  ] as unknown as SessionEvent[];
  for (const call of calls) {
    const body = { toolCallId: call.id, toolName: call.tool, arguments: '{}' };
    events.push({ seq: seq++, type: 'tool/started', body, ...at } as unknown as SessionEvent);
    if (call.finished)
      events.push({
        seq: seq++,
        type: 'tool/result',
        body: { ...body, content: 'ok', isError: false, outcome: 'ok' },
        ...at,
      } as unknown as SessionEvent);
  }
  // What the finished command did (the interrupted one did nothing before the crash).
  await fs.writeFile(join(workspace, 'count.txt'), '0\n');
  return { store, events };
}

const byTool = (call: { toolName: string }): CallIntent =>
  call.toolName === 'bash' ? { kind: 'command' } : undefined;

describe('an interrupted command among other calls of its step', () => {
  it('is not blamed for the changes of another command of the step: outcome unknown, changes named', async () => {
    const { store, events } = await step([
      { id: 'first', tool: 'bash', finished: true },
      { id: 'second', tool: 'bash', finished: false },
    ]);
    const verdicts = await verifyInterruptedCalls({ events, store, intent: byTool });
    expect(verdicts.get('second')).toEqual({
      verdict: 'unknown',
      reason:
        'files changed since the checkpoint before this step (added count.txt), but 1 other command of this step ran too, so which call changed them cannot be told',
    });
  });

  it('keeps the verified list when no other command ran in the step (a read does not count)', async () => {
    const { store, events } = await step([
      { id: 'look', tool: 'read', finished: true },
      { id: 'only', tool: 'bash', finished: false },
    ]);
    const verdict = (await verifyInterruptedCalls({ events, store, intent: byTool })).get('only');
    expect(verdict).toMatchObject({ verdict: 'files-changed' });
    const changes = verdict && 'changes' in verdict ? verdict.changes : [];
    expect(changes.map((change) => `${change.kind} ${change.path}`)).toEqual(['added count.txt']);
  });
});
