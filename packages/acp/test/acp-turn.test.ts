// A prompt turn over ACP, with the SDK's own client as the peer and every message validated
// against the published schema: capabilities, streamed text and reasoning, tool calls with their
// kind, diff and streamed command output, usage, title and commands, permissions asked only when
// Spine's policy asks a person, and every answer recorded as `tool/approval`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Fixture, fixture, kinds, type Peer } from './acp-harness.js';

let fx: Fixture | undefined;
let peer: Peer | undefined;
afterEach(async () => {
  await peer?.close();
  await fx?.cleanup();
  peer = undefined;
  fx = undefined;
});

/** The session's log events, read from the JSONL file. */
function logEvents(
  sessionDir: string,
  id: string,
): { type: string; body: Record<string, unknown> }[] {
  return readFileSync(join(sessionDir, `${id}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; body: Record<string, unknown> });
}

async function start(f: Fixture, options: Parameters<typeof connect>[1] = {}): Promise<string> {
  peer = await connect(f.config(), options);
  const init = await peer.agent.request('initialize', { protocolVersion: 1 });
  expect(init.agentInfo?.name).toBe('spine');
  const created = await peer.agent.request('session/new', { cwd: f.workspace, mcpServers: [] });
  return created.sessionId;
}

describe('a prompt turn over ACP', () => {
  it('advertises what it does, streams text and reasoning, reports usage, title and commands', async () => {
    fx = await fixture([{ reasoning: 'Thinking it over.', text: 'Hello from Spine.' }]);
    peer = await connect(fx.config());
    const init = await peer.agent.request('initialize', { protocolVersion: 1 });
    expect(init).toMatchObject({
      protocolVersion: 1,
      agentInfo: { name: 'spine', version: '0.0.0-test' },
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { embeddedContext: true, image: false, audio: false },
        sessionCapabilities: { resume: {}, close: {} },
      },
    });
    const { sessionId } = await peer.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    const response = await peer.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Say hello' }],
    });
    expect(response.stopReason).toBe('end_turn');
    const updates = peer.updates.filter((update) => update.sessionId === sessionId);
    const text = updates
      .map((u) => u.update)
      .filter((u) => u.sessionUpdate === 'agent_message_chunk')
      .map((u) => (u.content.type === 'text' ? u.content.text : ''))
      .join('');
    expect(text).toBe('Hello from Spine.');
    const thought = updates
      .map((u) => u.update)
      .filter((u) => u.sessionUpdate === 'agent_thought_chunk')
      .map((u) => (u.content.type === 'text' ? u.content.text : ''))
      .join('');
    expect(thought).toBe('Thinking it over.');
    const kindList = kinds(peer, sessionId);
    expect(kindList).toContain('available_commands_update');
    expect(kindList).toContain('session_info_update');
    const usage = updates.map((u) => u.update).find((u) => u.sessionUpdate === 'usage_update');
    expect(usage).toMatchObject({ sessionUpdate: 'usage_update', size: 1_000_000 });
    expect((usage as { used: number }).used).toBeGreaterThan(0);
    const info = updates
      .map((u) => u.update)
      .find((u) => u.sessionUpdate === 'session_info_update');
    expect(info).toMatchObject({ title: 'Say hello' });
    const commands = updates
      .map((u) => u.update)
      .find((u) => u.sessionUpdate === 'available_commands_update');
    expect(commands).toMatchObject({
      availableCommands: [
        { name: 'compact' },
        { name: 'title' },
        { name: 'fork' },
        { name: 'rewind' },
      ],
    });
    expect(peer.validator.problems).toEqual([]);
  }, 120_000);

  it('shows a write as a diff and streams a command with its output, each after a granted permission', async () => {
    fx = await fixture([
      {
        toolCalls: [
          {
            name: 'write',
            arguments: JSON.stringify({ path: 'notes.txt', content: 'new text\n' }),
          },
        ],
      },
      {
        toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo one; echo two' }) }],
      },
      { text: 'Done.' },
    ]);
    const sessionId = await start(fx, { answer: () => 'allow-once' });
    const response = await peer!.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Write the notes and run it' }],
    });
    expect(response.stopReason).toBe('end_turn');
    expect(readFileSync(join(fx.workspace, 'notes.txt'), 'utf8')).toBe('new text\n');
    const updates = peer!.updates.map((u) => u.update);
    const write = updates.find(
      (u) => u.sessionUpdate === 'tool_call' && u.title.startsWith('write'),
    );
    expect(write).toMatchObject({
      kind: 'edit',
      status: 'pending',
      locations: [{ path: join(fx.workspace, 'notes.txt') }],
      content: [
        {
          type: 'diff',
          path: join(fx.workspace, 'notes.txt'),
          oldText: null,
          newText: 'new text\n',
        },
      ],
    });
    const bash = updates.find((u) => u.sessionUpdate === 'tool_call' && u.kind === 'execute');
    expect(bash).toMatchObject({ title: 'bash: echo one; echo two' });
    const bashId = (bash as { toolCallId: string }).toolCallId;
    const bashUpdates = updates.filter(
      (u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === bashId,
    );
    expect(bashUpdates.map((u) => (u as { status?: string }).status).filter(Boolean)).toEqual([
      'in_progress',
      'completed',
    ]);
    const final = JSON.stringify(bashUpdates.at(-1));
    expect(final).toContain('$ echo one; echo two');
    expect(final).toContain('one\\ntwo');
    // Spine's policy asked for both (ask): one permission request each, with the content shown.
    expect(peer!.permissions.map((p) => p.toolCall.kind)).toEqual(['edit', 'execute']);
    expect(peer!.permissions[0]?.toolCall.content?.[0]).toMatchObject({ type: 'diff' });
    const approvals = logEvents(fx.sessionDir, sessionId).filter((e) => e.type === 'tool/approval');
    expect(approvals.map((e) => e.body.decision)).toEqual(['allow', 'allow']);
    expect(peer!.validator.problems).toEqual([]);
  }, 120_000);

  it('records a denial for a rejected, a cancelled and an unanswered permission request', async () => {
    const call = (id: string) => ({
      toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command: `echo ${id}` }) }],
    });
    fx = await fixture([call('a'), call('b'), call('c'), { text: 'Gave up.' }]);
    const answers = ['reject-once', 'cancel', 'never'] as const;
    let asked = 0;
    const sessionId = await start(fx, {
      answer: () => answers[asked++] ?? 'reject-once',
      permissionTimeoutMs: 500,
    });
    const response = await peer!.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Try three commands' }],
    });
    expect(response.stopReason).toBe('end_turn');
    const events = logEvents(fx.sessionDir, sessionId);
    const approvals = events.filter((e) => e.type === 'tool/approval');
    expect(approvals.map((e) => [e.body.toolCallId, e.body.decision])).toEqual([
      ['a', 'deny'],
      ['b', 'deny'],
      ['c', 'deny'],
    ]);
    const failed = peer!.updates
      .map((u) => u.update)
      .filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed');
    expect(failed).toHaveLength(3);
    expect(peer!.validator.problems).toEqual([]);
  }, 120_000);

  it('asks nobody when the policy does not ask a person', async () => {
    fx = await fixture([
      { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo free' }) }] },
      { text: 'Ok.' },
    ]);
    peer = await connect(fx.config({ approval: 'never-ask' }));
    await peer.agent.request('initialize', { protocolVersion: 1 });
    const { sessionId } = await peer.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    await peer.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Go' }],
    });
    expect(peer.permissions).toEqual([]);
    expect(peer.validator.problems).toEqual([]);
  }, 120_000);
});

describe('approval presets over ACP', () => {
  it('offers the presets, and a change is Spine policy: never-ask runs without asking, read-only puts commands in a read-only sandbox', async () => {
    fx = await fixture([
      { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo free' }) }] },
      { text: 'Ok.' },
      {
        toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'touch made.txt' }) }],
      },
      { text: 'Tried.' },
    ]);
    peer = await connect(fx.config(), { answer: () => 'allow-always' });
    await peer.agent.request('initialize', { protocolVersion: 1 });
    const created = await peer.agent.request('session/new', { cwd: fx.workspace, mcpServers: [] });
    const { sessionId } = created;
    expect(created.modes?.currentModeId).toBe('ask');
    expect(created.configOptions?.[0]).toMatchObject({ id: 'approval', currentValue: 'ask' });
    const changed = await peer.agent.request('session/set_config_option', {
      sessionId,
      configId: 'approval',
      value: 'never-ask',
    });
    expect(changed.configOptions[0]).toMatchObject({ currentValue: 'never-ask' });
    await peer.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Go' }],
    });
    expect(peer.permissions).toEqual([]);
    await peer.agent.request('session/set_mode', { sessionId, modeId: 'read-only' });
    await peer.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Touch' }],
    });
    // Allowed by the person ("always"), refused by the read-only sandbox: policy stays Spine's.
    expect(peer.permissions).toHaveLength(1);
    const events = logEvents(fx.sessionDir, sessionId);
    const approvals = events.filter((e) => e.type === 'tool/approval');
    expect(approvals.at(-1)?.body).toMatchObject({ decision: 'allow', scope: 'session' });
    const context = events.filter(
      (e) => e.type === 'user/message' && e.body.source === 'runtime-context',
    );
    expect(JSON.stringify(context.at(-1)?.body)).toContain('sandbox: read-only');
    await expect(
      peer.agent.request('session/set_mode', { sessionId, modeId: 'yolo' }),
    ).rejects.toMatchObject({ code: -32602 });
    expect(peer.validator.problems).toEqual([]);
  }, 120_000);
});
