// The agent's plan over ACP: each `update_plan` call becomes a `plan` update with every step and
// its status, the same live and after a load. Every message validated against the schema.
import type * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Fixture, fixture, type Peer } from './acp-harness.js';

let fx: Fixture | undefined;
let peer: Peer | undefined;
afterEach(async () => {
  await peer?.close();
  await fx?.cleanup();
  peer = undefined;
  fx = undefined;
});

const PLAN = {
  plan: [
    { step: 'Read the code', status: 'completed' },
    { step: 'Fix the bug', status: 'in_progress' },
    { step: 'Run the tests', status: 'pending' },
  ],
};

/** The `plan` updates received for `sessionId`. */
function plans(peer: Peer, sessionId: string): acp.SessionUpdate[] {
  return peer.updates
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'plan')
    .map((n) => n.update);
}

describe('the plan over ACP', () => {
  it('sends each update_plan as a plan update, the same live and loaded; a refused plan sends none', async () => {
    const twoInProgress = {
      plan: [
        { step: 'A', status: 'in_progress' },
        { step: 'B', status: 'in_progress' },
      ],
    };
    fx = await fixture([
      { toolCalls: [{ name: 'update_plan', arguments: JSON.stringify(PLAN) }] },
      { toolCalls: [{ name: 'update_plan', arguments: JSON.stringify(twoInProgress) }] },
      { text: 'Planned.' },
    ]);
    peer = await connect(fx.config());
    await peer.agent.request('initialize', { protocolVersion: 1 });
    const { sessionId } = await peer.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    await peer.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Plan it' }],
    });
    const live = plans(peer, sessionId);
    expect(live).toEqual([
      {
        sessionUpdate: 'plan',
        entries: [
          { content: 'Read the code', priority: 'medium', status: 'completed' },
          { content: 'Fix the bug', priority: 'medium', status: 'in_progress' },
          { content: 'Run the tests', priority: 'medium', status: 'pending' },
        ],
      },
    ]);
    expect(peer.validator.problems).toEqual([]);
    await peer.close();

    peer = await connect(fx.config());
    await peer.agent.request('initialize', { protocolVersion: 1 });
    await peer.agent.request('session/load', { sessionId, cwd: fx.workspace, mcpServers: [] });
    expect(plans(peer, sessionId)).toEqual(live);
    expect(peer.validator.problems).toEqual([]);
  }, 120_000);
});
