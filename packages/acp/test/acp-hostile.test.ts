// Hostile client input: unknown methods, malformed params, resources outside the workspace, huge
// prompts, prompts for sessions that do not exist, many prompts queued at once. Each is a clear
// JSON-RPC error or a turn, never a crash; the connection keeps serving afterwards.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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

describe('hostile ACP clients', () => {
  it('answers bad requests with JSON-RPC errors and keeps serving', async () => {
    fx = await fixture([{ text: 'Still here.' }]);
    peer = await connect(fx.config());
    await peer.agent.request('initialize', { protocolVersion: 1 });
    const { sessionId } = await peer.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    const unknown = await peer.raw({
      jsonrpc: '2.0',
      id: 'raw',
      method: 'spine/explode',
      params: {},
    });
    expect(unknown).toMatchObject({ error: { code: -32601 } });
    const malformed = await peer.raw({
      jsonrpc: '2.0',
      id: 'hostile',
      method: 'session/prompt',
      params: { sessionId: 42, prompt: 'not an array' },
    });
    expect(malformed).toMatchObject({ error: { code: -32602 } });
    await expect(
      peer.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'resource', resource: { uri: 'file:///etc/passwd', text: 'root:x:0:0' } }],
      }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('outside the workspace'),
    });
    await expect(
      peer.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'x'.repeat(2_000_000) }],
      }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('exceeds') });
    await expect(
      peer.agent.request('session/prompt', {
        sessionId: 'nope',
        prompt: [{ type: 'text', text: 'hi' }],
      }),
    ).rejects.toMatchObject({ code: -32002 });
    await expect(
      peer.agent.request('session/new', { cwd: 'relative/dir', mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32602 });
    // Nothing of the refused prompts reached the log; the session still works.
    const response = await peer.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Are you there?' }],
    });
    expect(response.stopReason).toBe('end_turn');
    const log = readFileSync(join(fx.sessionDir, `${sessionId}.jsonl`), 'utf8');
    expect(log).not.toContain('root:x:0:0');
    expect(peer.validator.problems).toEqual([]);
  }, 90_000);

  it('runs 1,000 prompts queued at once one after another, each its own turn, none lost', async () => {
    const count = 1_000;
    fx = await fixture(Array.from({ length: count }, (_, index) => ({ text: `answer ${index}` })));
    peer = await connect(fx.config());
    await peer.agent.request('initialize', { protocolVersion: 1 });
    const { sessionId } = await peer.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    const responses = await Promise.all(
      Array.from({ length: count }, (_, index) =>
        peer!.agent.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: `question ${index}` }],
        }),
      ),
    );
    expect(responses.every((response) => response.stopReason === 'end_turn')).toBe(true);
    await peer.agent.request('session/close', { sessionId });
    const events = readFileSync(join(fx.sessionDir, `${sessionId}.jsonl`), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(
        (line) => JSON.parse(line) as { type: string; body: { content?: string; source?: string } },
      );
    const asked = events
      .filter((event) => event.type === 'user/message' && event.body.source === 'user')
      .map((event) => event.body.content);
    expect(asked).toEqual(Array.from({ length: count }, (_, index) => `question ${index}`));
    expect(events.filter((event) => event.type === 'turn/end')).toHaveLength(count);
    expect(peer.validator.problems).toEqual([]);
  }, 600_000);
});
