// A child's answer far over the parent runtime's result cap (30,000 characters): the parent's
// `tool/result`, as the real tool runtime commits it, still ends with the whole record of the
// files the child changed and the commands it ran.
import type { ToolResultBody } from '@spine/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { call, createTree, results, type Tree, taskCall } from './harness.js';

const trees: Tree[] = [];
afterEach(async () => {
  for (const tree of trees.splice(0)) await tree.close();
});

// An astral character at every position the cut may land on.
const ANSWER = `Findings:\n${'😀 line of the report\n'.repeat(6_000)}`;

describe('a child answer over the result cap', () => {
  it('is cut, and the record of files changed and commands run after it is whole', async () => {
    const tree = await createTree({
      scripts: {
        parent: [{ toolCalls: [taskCall('call_1', 'general', 'long')] }, { text: 'Done.' }],
        long: [
          {
            toolCalls: [
              call('w1', 'write', { path: 'notes/report.md', content: '# report\n' }),
              call('b1', 'bash', { command: 'echo checked' }),
            ],
          },
          { text: ANSWER },
        ],
      },
    });
    trees.push(tree);
    const run = await tree.agent.run('[[parent]] write the report');
    expect(run.reason).toBe('completed');
    const result = results(tree.session.events()).find(
      (body) => body.toolCallId === 'call_1',
    ) as ToolResultBody;
    expect(ANSWER.length).toBeGreaterThan(100_000);
    expect(result.content.length).toBeLessThanOrEqual(30_000);
    expect(result.content.startsWith('Findings:\n😀 line of the report\n')).toBe(true);
    expect(/\p{Cs}/u.test(result.content)).toBe(false);
    expect(result.content).toMatch(
      /\n\n\[subagent general finished after 2 steps; files changed: notes\/report\.md; commands run: echo checked\]$/,
    );
    // The runtime's own cut did not have to act.
    expect(result.meta?.truncated).toBeUndefined();
  }, 30_000);
});
