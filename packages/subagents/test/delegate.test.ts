import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRecordedModel, recordedApprovals, rerun } from '@spine/agent-loop';
import type {
  ChildEndBody,
  ChildStartBody,
  SessionEvent,
  SessionHeaderBody,
  ToolResultBody,
} from '@spine/protocol';
import { Session } from '@spine/session-log';
import type { ScriptedReply } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import {
  childLinks,
  readSessionTree,
  recordedChildren,
  replayTree,
  usageWithChildren,
} from '../src/index.js';
import {
  call,
  createTree,
  markerOf,
  stepOf,
  type Tree,
  taskCall,
  writeWorkspace,
} from './harness.js';

const trees: Tree[] = [];
afterEach(async () => {
  for (const tree of trees.splice(0)) await tree.close();
});

const of = (events: readonly SessionEvent[], type: string) => events.filter((e) => e.type === type);

/** Parent: two explore tasks and one general task in one response, then a final answer. */
const SCRIPTS: Record<string, ScriptedReply[]> = {
  parent: [
    {
      toolCalls: [
        taskCall('call_a', 'explore', 'explore-a', 'find computeTotal'),
        taskCall('call_b', 'explore', 'explore-b', 'find its callers'),
        taskCall('call_c', 'general', 'general-c', 'rename the parameter'),
      ],
    },
    { text: 'All three subagents reported back.' },
  ],
  'explore-a': [
    // Slow chunks: explore-a is still running while explore-b starts (they run in parallel).
    { toolCalls: [call('a1', 'grep', { pattern: 'computeTotal' })], chunkSize: 4, delayMs: 40 },
    { text: 'computeTotal is defined at src/math.ts:1.' },
  ],
  'explore-b': [
    { toolCalls: [call('b1', 'read', { path: 'src/cart.ts' })] },
    { text: 'It is called at src/cart.ts:3.' },
  ],
  'general-c': [
    { toolCalls: [call('c1', 'read', { path: 'src/math.ts' })] },
    {
      toolCalls: [
        call('c2', 'edit', {
          path: 'src/math.ts',
          edits: [
            { oldText: 'items: number[]', newText: 'values: number[]' },
            { oldText: 'items.reduce', newText: 'values.reduce' },
          ],
        }),
      ],
    },
    { text: 'Renamed items to values in src/math.ts.' },
  ],
};

async function delegate(): Promise<Tree> {
  const tree = await createTree({ scripts: SCRIPTS });
  trees.push(tree);
  const result = await tree.agent.run(
    '[[parent]] investigate computeTotal and rename its parameter',
  );
  expect(result.reason).toBe('completed');
  await tree.session.flush(); // the tree is read back from the store
  return tree;
}

describe('the task tool', () => {
  it('runs two explore tasks in parallel and a general one alone, results in call order', async () => {
    const tree = await delegate();
    const events = tree.session.events();
    const results = of(events, 'tool/result').map((e) => e.body as ToolResultBody);
    expect(results.map((r) => r.toolCallId)).toEqual(['call_a', 'call_b', 'call_c']);
    expect(results.every((r) => !r.isError)).toBe(true);
    expect(results[0]?.content).toContain('computeTotal is defined at src/math.ts:1.');
    expect(results[0]?.content).toContain('files changed: none');
    expect(results[1]?.content).toContain('src/cart.ts:3');
    expect(results[2]?.content).toContain('Renamed items to values');
    expect(results[2]?.content).toContain('files changed: src/math.ts');
    expect(readFileSync(join(tree.workspace, 'src/math.ts'), 'utf8')).toContain('values.reduce');

    // Parallel: explore-b's first request came before explore-a's last one; the writer waited.
    const requests = tree.server?.requests ?? [];
    const at = (marker: string, step: number) =>
      requests.find((r) => markerOf(r) === marker && stepOf(r) === step)?.at ?? Number.NaN;
    expect(at('explore-b', 0)).toBeLessThan(at('explore-a', 1));
    expect(at('general-c', 0)).toBeGreaterThanOrEqual(
      Math.max(at('explore-a', 1), at('explore-b', 1)),
    );

    // The child's history never enters the parent's context: the parent's second request has
    // the three results but none of the children's tool calls.
    const parentFinal = requests.find((r) => markerOf(r) === 'parent' && stepOf(r) === 1);
    expect(parentFinal?.raw).toContain('computeTotal is defined at src/math.ts:1.');
    expect(parentFinal?.raw).not.toContain('"a1"');
    expect(parentFinal?.raw).not.toContain('export function computeTotal');
  });

  it('reports each child’s current tool as live progress of its task call', async () => {
    const tree = await createTree({ scripts: SCRIPTS });
    trees.push(tree);
    const progress: { toolCallId: string; message?: string }[] = [];
    tree.agent.on('tool-progress', ({ toolCallId, message }) =>
      progress.push({ toolCallId, message }),
    );
    expect((await tree.agent.run('[[parent]] go')).reason).toBe('completed');
    expect(progress).toContainEqual({
      toolCallId: 'call_a',
      message: 'subagent explore (find computeTotal): grep',
    });
    expect(progress.filter((p) => p.toolCallId === 'call_c').map((p) => p.message)).toEqual([
      'subagent general (rename the parameter): read',
      'subagent general (rename the parameter): edit',
    ]);
  });

  it('links each child session to its parent both ways and verifies the whole tree', async () => {
    const tree = await delegate();
    const events = tree.session.events();
    const links = childLinks(events);
    expect(links.map((l) => [l.start.toolCallId, l.start.profile, l.start.depth])).toEqual([
      ['call_a', 'explore', 1],
      ['call_b', 'explore', 1],
      ['call_c', 'general', 1],
    ]);
    for (const link of links) {
      expect(link.end?.reason).toBe('completed');
      const child = await Session.open({
        store: tree.store,
        id: link.start.sessionId,
        readOnly: true,
      });
      const header: SessionHeaderBody = child.header;
      expect(header.parent).toEqual({
        sessionId: tree.session.id,
        atSeq: link.startSeq,
        toolCallId: link.start.toolCallId,
      });
      expect(header.cwd).toBe(tree.workspace);
      // Explore children saw only read-only tools; the general one the parent's minus task.
      const defined = of(child.events(), 'tools/defined')[0]?.body as { tools: { name: string }[] };
      const names = defined.tools.map((t) => t.name).sort();
      if (link.start.profile === 'explore') expect(names).toEqual(['glob', 'grep', 'list', 'read']);
      else expect(names).toEqual(['bash', 'edit', 'glob', 'grep', 'list', 'read', 'write']);
      await child.close();
    }
    const general = links[2]?.end as ChildEndBody;
    expect(general.files).toEqual(['src/math.ts']);

    const report = await replayTree(tree.store, tree.session.id);
    expect(report.sessions.map((s) => s.depth)).toEqual([0, 1, 1, 1]);
    expect(report.sessions.every((s) => s.report.requests.length > 0)).toBe(true);
    expect(report.sessions.map((s) => [s.problems, s.report.firstMismatch])).toEqual([
      [[], undefined],
      [[], undefined],
      [[], undefined],
      [[], undefined],
    ]);
    expect(report.ok).toBe(true);
  });

  it('rolls the children’s usage up into the parent’s totals', async () => {
    const tree = await delegate();
    const root = await readSessionTree(tree.store, tree.session.id);
    const own = tree.agent.usage;
    const childrenUsage = root.children.map((child) => child.usage);
    expect(root.usage.inputTokens).toBe(
      own.inputTokens + childrenUsage.reduce((sum, usage) => sum + usage.inputTokens, 0),
    );
    expect(root.usage.outputTokens).toBeGreaterThan(own.outputTokens);
    expect(usageWithChildren(tree.session.events())).toEqual(root.usage);
  });

  it('reruns the tree offline from the recorded outputs and reproduces every tool result', async () => {
    const recordedTree = await delegate();
    const recorded = recordedTree.session.events();
    const children = await recordedChildren(recordedTree.store, recordedTree.session.id);
    writeWorkspace(recordedTree.workspace); // the rerun starts from the same files
    const model = createRecordedModel({ events: recorded });
    const approvals = recordedApprovals(recorded);
    const rerunTree = await createTree({
      model,
      workspace: recordedTree.workspace,
      approve: async (request) =>
        'child' in request
          ? children.approve(request as Parameters<typeof children.approve>[0])
          : (approvals.get(request.toolCallId) ?? 'once'),
      task: { childModel: children.childModel },
    });
    trees.push(rerunTree);
    const report = await rerun(recorded, { agent: rerunTree.agent, model });
    expect(report.differences).toEqual([]);
    expect(report.toolResults).toEqual({ recorded: 3, rerun: 3, same: 3 });
    expect(report.ok).toBe(true);
    // compare reads the rerun's parent back from the store: its last links (call_c starts after
    // the explore children end) may still be in the writer's buffer.
    await rerunTree.session.flush();
    const childReport = await children.compare(rerunTree.store, rerunTree.session.id);
    expect(childReport.children).toHaveLength(3);
    for (const child of childReport.children) {
      expect(child.differences).toEqual([]);
      expect(child.modelOutputs.replayed).toBe(child.modelOutputs.recorded);
    }
    expect(childReport.ok).toBe(true);
    expect(readFileSync(join(rerunTree.workspace, 'src/math.ts'), 'utf8')).toContain(
      'values.reduce',
    );
    // The rerun made no network request: every output came from the recordings.
    expect(rerunTree.server).toBeUndefined();
    const start = of(rerunTree.session.events(), 'agent/child/start').map(
      (e) => (e.body as ChildStartBody).toolCallId,
    );
    expect(start).toEqual(['call_a', 'call_b', 'call_c']);
  });
});
