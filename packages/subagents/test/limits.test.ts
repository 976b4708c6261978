import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ApprovalRequest, ChildEndBody } from '@spine/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AgentProfile,
  type ChildApprovalRequest,
  type ChildToolsRequest,
  EXPLORE_PROFILE,
  GENERAL_PROFILE,
} from '../src/index.js';
import { call, childEvents, createTree, results, type Tree, taskCall } from './harness.js';

const trees: Tree[] = [];
afterEach(async () => {
  for (const tree of trees.splice(0)) await tree.close();
});

const RO_WRITER: AgentProfile = {
  name: 'ro-writer',
  description: 'Writes, but in a read-only sandbox',
  prompt: 'You write files.',
  tools: ['write', 'read'],
  sandbox: 'read-only',
  source: 'test',
};
const WIDE: AgentProfile = {
  ...GENERAL_PROFILE,
  name: 'wide',
  sandbox: 'danger-full-access',
  source: 'test',
};
const PROFILES = [RO_WRITER, WIDE, EXPLORE_PROFILE, GENERAL_PROFILE];

describe('a child stays within its parent', () => {
  it('is refused a write in a read-only sandbox and a tool its profile lacks, and is never wider', async () => {
    const requests: ChildToolsRequest[] = [];
    const tree = await createTree({
      scripts: {
        parent: [
          {
            toolCalls: [
              taskCall('call_ro', 'ro-writer', 'ro'),
              taskCall('call_ex', 'explore', 'ex'),
              taskCall('call_wide', 'wide', 'wide'),
              taskCall('call_nope', 'nonexistent', 'nope'),
            ],
          },
          { text: 'done' },
        ],
        ro: [
          { toolCalls: [call('w1', 'write', { path: 'new.txt', content: 'x' })] },
          { text: 'I could not write.' },
        ],
        ex: [
          {
            toolCalls: [
              call('e1', 'write', { path: 'new.txt', content: 'x' }),
              call('e2', 'task', { description: 'x', prompt: 'y', profile: 'explore' }),
            ],
          },
          { text: 'No write tool.' },
        ],
        wide: [{ text: 'nothing to do' }],
      },
      sandbox: 'workspace-write',
      task: { profiles: PROFILES },
      onToolsRequest: (request) => requests.push(request),
    });
    trees.push(tree);
    expect((await tree.agent.run('[[parent]] try things')).reason).toBe('completed');

    const ro = results(await childEvents(tree, 0));
    expect(ro[0]).toMatchObject({ toolName: 'write', isError: true });
    expect(ro[0]?.content).toContain('read-only');
    const ex = results(await childEvents(tree, 1));
    expect(ex.map((r) => r.outcome)).toEqual(['not-found', 'not-found']);
    expect(ex[0]?.content).toContain('not available to this subagent');
    expect(existsSync(join(tree.workspace, 'new.txt'))).toBe(false);

    const byProfile = Object.fromEntries(requests.map((r) => [r.profile.name, r]));
    expect(byProfile['ro-writer']?.sandbox).toBe('read-only');
    expect(byProfile['ro-writer']?.tools).toEqual(['read', 'write']);
    expect(byProfile.explore?.sandbox).toBe('read-only');
    // A profile asking for full access gets the parent's workspace-write, and never `task`.
    expect(byProfile.wide?.sandbox).toBe('workspace-write');
    expect(byProfile.wide?.tools).not.toContain('task');
    expect(byProfile.wide?.tools).toContain('bash');

    const parentResults = results(tree.session.events());
    expect(parentResults.map((r) => r.toolCallId)).toEqual([
      'call_ro',
      'call_ex',
      'call_wide',
      'call_nope',
    ]);
    expect(parentResults[3]).toMatchObject({ isError: true });
    // The schema lists the profiles, so an unknown one is refused as invalid arguments.
    expect(parentResults[3]?.content).toContain('Invalid arguments for tool `task`: `profile`');
  });

  it('lets a child start a child only within the depth limit', async () => {
    const requests: ChildToolsRequest[] = [];
    const tree = await createTree({
      scripts: {
        parent: [{ toolCalls: [taskCall('call_g', 'general', 'g')] }, { text: 'done' }],
        g: [{ text: 'ok' }],
      },
      task: { maxDepth: 2 },
      onToolsRequest: (request) => requests.push(request),
    });
    trees.push(tree);
    expect((await tree.agent.run('[[parent]] go')).reason).toBe('completed');
    expect(requests[0]?.depth).toBe(1);
    expect(requests[0]?.tools).toContain('task');
  });

  it('sends a child’s approval question to the parent’s callback, labelled with the child', async () => {
    const asked: ApprovalRequest[] = [];
    const tree = await createTree({
      scripts: {
        parent: [
          { toolCalls: [taskCall('call_g', 'general', 'g', 'write the notes')] },
          { text: 'done' },
        ],
        g: [
          { toolCalls: [call('g1', 'write', { path: 'notes.txt', content: 'hello' })] },
          { text: 'The write was denied.' },
        ],
      },
      approval: 'ask',
      approve: async (request) => {
        asked.push(request);
        return 'deny';
      },
    });
    trees.push(tree);
    expect((await tree.agent.run('[[parent]] go')).reason).toBe('completed');
    expect(asked).toHaveLength(1);
    const request = asked[0] as ChildApprovalRequest;
    expect(request.toolName).toBe('write');
    expect(request.reason).toMatch(/^\[subagent general: write the notes\] /);
    expect(request.child).toMatchObject({
      toolCallId: 'call_g',
      depth: 1,
      description: 'write the notes',
    });
    expect(request.child.profile.name).toBe('general');
    expect(results(await childEvents(tree))[0]?.outcome).toBe('denied');
    expect(existsSync(join(tree.workspace, 'notes.txt'))).toBe(false);
  });
});

describe('limits', () => {
  it('stops a child at its step limit, its token budget and its time limit, as tool errors', async () => {
    const looping = (marker: string) =>
      Array.from({ length: 6 }, (_, i) => ({ toolCalls: [call(`${marker}${i}`, 'list', {})] }));
    const tree = await createTree({
      scripts: {
        parent: [
          {
            toolCalls: [
              taskCall('call_steps', 'short', 'steps'),
              taskCall('call_tokens', 'explore', 'tokens'),
            ],
          },
          { toolCalls: [taskCall('call_time', 'explore', 'time')] },
          { text: 'done' },
        ],
        steps: looping('s'),
        tokens: looping('t'),
        time: [{ stallAfterChunks: 1 }],
      },
      task: {
        profiles: [{ ...EXPLORE_PROFILE, name: 'short', maxSteps: 2 }, EXPLORE_PROFILE],
        limits: { maxTokens: 2_500, timeoutMs: 1_500 },
      },
    });
    trees.push(tree);
    expect((await tree.agent.run('[[parent]] go')).reason).toBe('completed');
    const parent = results(tree.session.events());
    expect(parent.map((r) => [r.toolCallId, r.isError])).toEqual([
      ['call_steps', true],
      ['call_tokens', true],
      ['call_time', true],
    ]);
    expect(parent[0]?.content).toContain('stopped (max-steps) after 2 steps');
    expect(parent[1]?.content).toMatch(/used \d+ tokens, over its budget of 2500/);
    expect(parent[2]?.content).toContain('ran out of time (1500 ms)');
    const ends = tree.session
      .events()
      .filter((e) => e.type === 'agent/child/end')
      .map((e) => e.body as ChildEndBody);
    expect(ends.map((e) => e.reason)).toEqual(['max-steps', 'error', 'error']);
  }, 60_000);
});
