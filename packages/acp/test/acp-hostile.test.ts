// Hostile client input: unknown methods, malformed params, resources outside the workspace, huge
// prompts, prompts for sessions that do not exist, many prompts queued at once. Each is a clear
// JSON-RPC error or a turn, never a crash; the connection keeps serving afterwards.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { requestErrorOf } from '../src/internal/request-errors.js';
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
  it('answers a bad cwd with -32602 and a missing API key with auth_required (-32000)', async () => {
    fx = await fixture([{ text: 'Here.' }]);
    const workspace = fx.workspace;
    writeFileSync(join(workspace, 'a-file.txt'), 'x');
    const base = fx.config();
    const noKey = fx.config({
      model: 'deepseek/deepseek-v4-flash',
      apiKeyEnv: 'SPINE_TEST_KEY_THAT_IS_NOT_SET',
    });
    peer = await connect((cwd) => (cwd === join(workspace, 'keyless') ? noKey : base));
    await peer.agent.request('initialize', { protocolVersion: 1 });
    for (const [cwd, why] of [
      [join(workspace, 'does-not-exist'), 'cwd does not exist'],
      [join(workspace, 'a-file.txt'), 'cwd is not a directory'],
      [`${workspace}/x\u0000y`, 'cwd contains a NUL character'],
    ] as const) {
      await expect(
        peer.agent.request('session/new', { cwd, mcpServers: [] }),
      ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining(why) });
    }
    mkdirSync(join(workspace, 'keyless'));
    await expect(
      peer.agent.request('session/new', { cwd: join(workspace, 'keyless'), mcpServers: [] }),
    ).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining('SPINE_TEST_KEY_THAT_IS_NOT_SET is not set'),
    });
    // Still serving.
    await peer.agent.request('session/new', { cwd: workspace, mcpServers: [] });
    expect(peer.validator.problems).toEqual([]);
  }, 60_000);

  it('says how to fix a session directory the agent may not write', async () => {
    const acp = await import('@agentclientprotocol/sdk');
    const denied = Object.assign(new Error("EACCES: permission denied, open '/s/x.lock'"), {
      code: 'EACCES',
      path: '/s/x.lock',
    });
    const error = requestErrorOf(acp, new Error('could not lock', { cause: denied }));
    expect(error.code).toBe(-32603);
    expect(error.message).not.toMatch(/^Internal error/);
    expect(error.message).toContain('EACCES /s/x.lock');
    expect(error.message).toContain('--session-dir');
  });

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
