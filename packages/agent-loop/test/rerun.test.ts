import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionEvent } from '@spine/protocol';
import { createMemoryStore, Session } from '@spine/session-log';
import { createToolRuntime, createWorkspaceTools } from '@spine/tool-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAgent,
  createRecordedModel,
  recordedApprovals,
  rerun,
  SystemPrompt,
} from '../src/index.js';
import { createHarness, type Harness, replayThenClose } from './harness.js';

let harness: Harness | undefined;
const cleanup: string[] = [];
afterEach(async () => {
  const finished = harness;
  harness = undefined;
  await replayThenClose(finished);
  for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Records a session against the loopback server: read data.txt, write out.txt, answer. */
async function record(): Promise<{ events: SessionEvent[]; workspace: string }> {
  harness = await createHarness({
    replies: [
      { toolCalls: [{ id: 'c1', name: 'read', arguments: JSON.stringify({ path: 'data.txt' }) }] },
      {
        toolCalls: [
          {
            id: 'c2',
            name: 'write',
            arguments: JSON.stringify({ path: 'out.txt', content: 'copied\n' }),
          },
        ],
      },
      { text: 'Done.' },
      { text: 'Nothing else.' },
    ],
  });
  writeFileSync(join(harness.workspace, 'data.txt'), 'one\n');
  expect((await harness.agent.run('Read data.txt, then write out.txt.')).reason).toBe('completed');
  expect((await harness.agent.run('Anything else?')).reason).toBe('completed');
  return { events: [...harness.session.events()], workspace: harness.workspace };
}

/** Reruns `events` in a fresh workspace holding `data`, with the same tools and no network. */
async function rerunIn(events: readonly SessionEvent[], data: string) {
  const workspace = mkdtempSync(join(tmpdir(), 'spine-rerun-ws-'));
  cleanup.push(workspace);
  writeFileSync(join(workspace, 'data.txt'), data);
  const session = await Session.create({ store: createMemoryStore(), cwd: workspace });
  const model = createRecordedModel({ events });
  const answers = recordedApprovals(events);
  const agent = createAgent({
    session,
    model,
    modelId: 'deepseek-v4-flash',
    tools: createToolRuntime({
      cwd: workspace,
      tools: createWorkspaceTools({ cwd: workspace, sandboxBackend: null }),
      approval: 'never-ask',
      sandboxBackend: null,
    }),
    systemPrompt: new SystemPrompt('You are a careful coding agent. Read before you edit.'),
    approve: async (request) => answers.get(request.toolCallId) ?? 'once',
  });
  const turns: string[] = [];
  const report = await rerun(events, {
    agent,
    model,
    onTurn: (input) => turns.push(input.content),
  });
  return { report, turns, workspace, session };
}

describe('rerun', () => {
  it('re-executes recorded model outputs against the current workspace and matches the recording', async () => {
    const { events, workspace: recordedWorkspace } = await record();
    const { report, turns, workspace, session } = await rerunIn(events, 'one\n');
    expect(turns).toEqual(['Read data.txt, then write out.txt.', 'Anything else?']);
    expect(report.ok).toBe(true);
    expect(report.turns).toBe(2);
    expect(report.modelOutputs).toEqual({ recorded: 4, replayed: 4 });
    expect(report.toolResults).toEqual({ recorded: 2, rerun: 2, same: 2 });
    expect(report.differences).toEqual([]);
    expect(report.verified.ok).toBe(true);
    expect(report.verified.requests).toHaveLength(4);
    expect(readFileSync(join(workspace, 'out.txt'), 'utf8')).toBe('copied\n');
    expect(session.header.cwd).not.toBe(recordedWorkspace);
  });

  it('names the tool result that changed when the workspace differs', async () => {
    const { events } = await record();
    const { report } = await rerunIn(events, 'two\n');
    expect(report.ok).toBe(false);
    expect(report.toolResults.same).toBe(1);
    expect(report.differences).toHaveLength(1);
    expect(report.differences[0]).toMatchObject({ index: 0, toolName: 'read', field: 'content' });
    expect(report.differences[0]?.expected).toContain('one');
    expect(report.differences[0]?.actual).toContain('two');
    // The model outputs were all used and the rerun's own requests still verify.
    expect(report.modelOutputs.replayed).toBe(4);
    expect(report.verified.ok).toBe(true);
  });

  it('reports unused recorded outputs when the current code takes a shorter path', async () => {
    const { events } = await record();
    const firstTurn = events.filter(
      (event) =>
        !(
          event.type === 'user/message' &&
          (event.body as { content: string }).content === 'Anything else?'
        ),
    );
    const { report } = await rerunIn(firstTurn, 'one\n');
    expect(report.turns).toBe(1);
    expect(report.modelOutputs).toEqual({ recorded: 4, replayed: 3 });
    expect(report.ok).toBe(false);
  });
});
