// A subagent turn over ACP: the parent's `task` call shows its child's progress as the child
// works and carries the child session's id in `_meta`, live and after a load alike; a client
// opens the child with `session/load` of that id. Every message validated against the schema.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { CHILD_SESSION_META } from '../src/internal/subagents.js';
import { connect, type Fixture, fixture, type Peer } from './acp-harness.js';

let fx: Fixture | undefined;
let peer: Peer | undefined;
afterEach(async () => {
  await peer?.close();
  await fx?.cleanup();
  peer = undefined;
  fx = undefined;
});

const TASK = {
  description: 'read the notes',
  prompt: 'Read notes.txt and say what it says.',
  profile: 'explore',
};

/** The `tool_call_update`s of `toolCallId` received for `sessionId`, in order. */
function callUpdates(
  updates: acp.SessionNotification[],
  sessionId: string,
  toolCallId: string,
): acp.ToolCallUpdate[] {
  return updates
    .filter((n) => n.sessionId === sessionId)
    .map((n) => n.update)
    .filter(
      (u): u is Extract<acp.SessionUpdate, { sessionUpdate: 'tool_call_update' }> =>
        u.sessionUpdate === 'tool_call_update' && u.toolCallId === toolCallId,
    );
}

/** The text of an update's content. */
function contentText(update: acp.ToolCallUpdate): string {
  return JSON.stringify(update.content ?? []);
}

describe('a subagent turn over ACP', () => {
  it('shows the child working inside the task call, linked to its session, live and loaded', async () => {
    fx = await fixture([
      { toolCalls: [{ id: 'call-task', name: 'task', arguments: JSON.stringify(TASK) }] },
      { toolCalls: [{ name: 'read', arguments: JSON.stringify({ path: 'notes.txt' }) }] },
      { text: 'The notes say hello.' },
      { text: 'The subagent found: hello.' },
    ]);
    writeFileSync(join(fx.workspace, 'notes.txt'), 'hello\n');
    peer = await connect(fx.config({ approval: 'never-ask' }));
    await peer.agent.request('initialize', { protocolVersion: 1 });
    const { sessionId } = await peer.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    const response = await peer.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Delegate' }],
    });
    expect(response.stopReason).toBe('end_turn');
    const live = callUpdates(peer.updates, sessionId, 'call-task');
    const linked = live.filter((u) => typeof u._meta?.[CHILD_SESSION_META] === 'string');
    expect(linked.length).toBeGreaterThan(0);
    const childId = linked[0]?._meta?.[CHILD_SESSION_META] as string;
    expect(childId).not.toBe(sessionId);
    // The child's progress, as the child worked: its read shown inside the parent's call.
    expect(
      live.some((u) => contentText(u).includes('subagent explore (read the notes): read')),
    ).toBe(true);
    const final = live.at(-1);
    expect(final).toMatchObject({ status: 'completed', _meta: { [CHILD_SESSION_META]: childId } });
    expect(contentText(final!)).toContain('The notes say hello.');
    await peer.close();

    // After a load the call carries the same link and the same result.
    peer = await connect(fx.config({ approval: 'never-ask' }));
    await peer.agent.request('initialize', { protocolVersion: 1 });
    await peer.agent.request('session/load', { sessionId, cwd: fx.workspace, mcpServers: [] });
    const loaded = callUpdates(peer.updates, sessionId, 'call-task');
    // The child's start is the same update live and loaded (progress lines are live only).
    expect(loaded.find((u) => u._meta?.[CHILD_SESSION_META] === childId)).toEqual(linked[0]);
    expect(loaded.at(-1)).toEqual(final);
    // The client opens the child: its own turn, the read and the answer.
    await peer.agent.request('session/load', {
      sessionId: childId,
      cwd: fx.workspace,
      mcpServers: [],
    });
    const child = peer.updates.filter((n) => n.sessionId === childId).map((n) => n.update);
    expect(child.some((u) => u.sessionUpdate === 'tool_call' && u.title === 'read notes.txt')).toBe(
      true,
    );
    expect(JSON.stringify(child)).toContain('The notes say hello.');
    expect(peer.validator.problems).toEqual([]);
  }, 120_000);
});
