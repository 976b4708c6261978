// A crash while a child's file tool and command ran: the child's interrupted calls are judged
// against the checkpoint the parent took before its `task` call (a real git checkpoint store,
// real JSONL sessions), and the child's record then names every file really changed.
import { promises as fs, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildEndBody, SessionEvent, ToolResultBody } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { recoverChildren } from '@spine/subagents';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../config/schema.js';
import { checkpointStoreFor } from '../rewind/checkpoint-store.js';
import { answerChildInterruptedCalls } from './verify-child.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const call = (id: string, name: string, args: unknown) => ({
  type: 'tool-call' as const,
  id,
  name,
  arguments: JSON.stringify(args),
});

/** A parent whose `task` call started a child, and a child with calls left without results. */
async function crashedTree(checkpoints: boolean) {
  const root = mkdtempSync(join(tmpdir(), 'spine-verify-child-'));
  roots.push(root);
  const workspace = join(root, 'workspace');
  await fs.mkdir(workspace);
  await fs.writeFile(join(workspace, 'kept.txt'), 'before\n');
  const config = { ...defaultConfig({}), sessionDir: join(root, 'sessions') };
  config.rewind = { ...config.rewind, checkpoints };
  const store = createJsonlStore({ dir: config.sessionDir, fsync: 'never' });
  const checkpoint = await (await checkpointStoreFor(config, workspace)).checkpoint();

  const parent = await Session.create({ store, cwd: workspace });
  const at = { turn: 1, step: 1 };
  const task = call('call_1', 'task', { description: 'd', prompt: 'p', profile: 'general' });
  parent.append('turn/start', {}, { turn: 1, step: 0 });
  parent.append(
    'user/message',
    { content: 'go', source: 'user' },
    { turn: 1, step: 0, surfaceOp: { op: 'append' } },
  );
  parent.append('step/start', {}, at);
  parent.append(
    'assistant/message',
    { content: [task], finishReason: 'tool-calls' },
    { ...at, surfaceOp: { op: 'append' } },
  );
  parent.append(
    'workspace/checkpoint',
    { id: checkpoint.id, store: 'git', reason: 'step', scope: 'workspace', changes: [] },
    at,
  );
  parent.append(
    'tool/started',
    { toolCallId: 'call_1', toolName: 'task', arguments: task.arguments },
    at,
  );
  const childId = `${parent.id}-child`;
  const startSeq = parent.append(
    'agent/child/start',
    { sessionId: childId, toolCallId: 'call_1', profile: 'general', description: 'd', depth: 1 },
    at,
  ).seq;
  await parent.close();

  const child = await Session.create({
    store,
    id: childId,
    cwd: workspace,
    parent: { sessionId: parent.id, atSeq: startSeq },
  });
  const write = call('w1', 'write', { path: 'written.txt', content: 'fresh\n' });
  const bash = call('b1', 'bash', { command: 'echo made > made.txt; sleep 60' });
  child.append('turn/start', {}, { turn: 1, step: 0 });
  child.append(
    'user/message',
    { content: 'p', source: 'user' },
    { turn: 1, step: 0, surfaceOp: { op: 'append' } },
  );
  child.append('step/start', {}, at);
  child.append(
    'assistant/message',
    { content: [write, bash], finishReason: 'tool-calls' },
    { ...at, surfaceOp: { op: 'append' } },
  );
  child.append(
    'tool/started',
    { toolCallId: 'w1', toolName: 'write', arguments: write.arguments },
    at,
  );
  child.append(
    'tool/started',
    { toolCallId: 'b1', toolName: 'bash', arguments: bash.arguments },
    at,
  );
  await child.close();
  // What the two calls did before the process stopped.
  await fs.writeFile(join(workspace, 'written.txt'), 'fresh\n');
  await fs.writeFile(join(workspace, 'made.txt'), 'made\n');
  return { store, config, workspace, parentId: parent.id, childId };
}

async function eventsOf(
  store: ReturnType<typeof createJsonlStore>,
  id: string,
): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  for await (const event of store.readRange(id, { fromSeq: 1 })) events.push(event);
  return events;
}

describe('answerChildInterruptedCalls', () => {
  it("verifies a child's interrupted write and command against the parent's checkpoint", async () => {
    const tree = await crashedTree(true);
    const answered = await answerChildInterruptedCalls({
      store: tree.store,
      id: tree.parentId,
      config: tree.config,
      cwd: tree.workspace,
    });
    expect(answered).toBe(2);
    const results = (await eventsOf(tree.store, tree.childId))
      .filter((event) => event.type === 'tool/result')
      .map((event) => event.body as ToolResultBody);
    expect(results.find((body) => body.toolCallId === 'w1')).toMatchObject({
      outcome: 'ok',
      meta: { verdict: 'applied' },
    });
    const command = results.find((body) => body.toolCallId === 'b1');
    expect(command?.meta?.changedFiles).toEqual(['added made.txt', 'added written.txt']);
    expect(command?.content).toContain('the checkpoint taken before its parent called it');

    await recoverChildren(tree.store, tree.parentId);
    const parentEvents = await eventsOf(tree.store, tree.parentId);
    const end = parentEvents.find((event) => event.type === 'agent/child/end')
      ?.body as ChildEndBody;
    expect(end.files).toEqual(['written.txt', 'made.txt']);
    const result = parentEvents.find((event) => event.type === 'tool/result')
      ?.body as ToolResultBody;
    expect(result.content).toContain('files changed: written.txt, made.txt;');
  });

  it('does nothing when checkpoints are off (the child is closed "outcome unknown")', async () => {
    const tree = await crashedTree(false);
    expect(
      await answerChildInterruptedCalls({
        store: tree.store,
        id: tree.parentId,
        config: tree.config,
        cwd: tree.workspace,
      }),
    ).toBe(0);
    await recoverChildren(tree.store, tree.parentId);
    const end = (await eventsOf(tree.store, tree.parentId)).find(
      (event) => event.type === 'agent/child/end',
    )?.body as ChildEndBody;
    expect(end.files).toEqual([]);
  });
});
