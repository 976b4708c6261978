// Session settings changed by the client, recorded in the log: the approval preset (plan mode
// included, as `plan/mode`; the others as `session/config`) and the model, whose change is used
// for the next request. Every message validated against the SDK's schema.
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

/** The session's log events, read from the JSONL file. */
function logEvents(sessionDir: string, id: string): { type: string; body: unknown }[] {
  return readFileSync(join(sessionDir, `${id}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; body: unknown });
}

const OTHER = { provider: 'openai-compatible', id: 'other-model', contextWindow: 64_000 };

describe('settings changed over ACP', () => {
  it('records preset changes (plan as plan/mode) and refuses writes in plan mode', async () => {
    fx = await fixture([
      {
        toolCalls: [{ name: 'write', arguments: JSON.stringify({ path: 'a.txt', content: 'x' }) }],
      },
      { text: 'Refused.' },
    ]);
    peer = await connect(fx.config(), { answer: () => 'allow-once' });
    await peer.agent.request('initialize', { protocolVersion: 1 });
    const created = await peer.agent.request('session/new', { cwd: fx.workspace, mcpServers: [] });
    const { sessionId } = created;
    expect(created.modes?.availableModes.map((mode) => mode.id)).toContain('plan');
    const planned = await peer.agent.request('session/set_config_option', {
      sessionId,
      configId: 'approval',
      value: 'plan',
    });
    expect(planned.configOptions[0]).toMatchObject({ currentValue: 'plan' });
    await peer.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Write a.txt' }],
    });
    // Plan mode refuses the write without asking anyone.
    expect(peer.permissions).toEqual([]);
    expect(() => readFileSync(join(fx!.workspace, 'a.txt'))).toThrow();
    await peer.agent.request('session/set_mode', { sessionId, modeId: 'auto-edit' });
    await peer.agent.request('session/set_mode', { sessionId, modeId: 'auto-edit' });
    await peer.agent.request('session/set_mode', { sessionId, modeId: 'read-only' });
    // Closed, so everything appended is on disk.
    await peer.agent.request('session/close', { sessionId });
    const changes = logEvents(fx.sessionDir, sessionId)
      .filter((event) => event.type === 'plan/mode' || event.type === 'session/config')
      .map((event) => ({ type: event.type, body: event.body }));
    expect(changes).toEqual([
      {
        type: 'plan/mode',
        body: { mode: 'plan', approval: 'plan', previous: 'ask', by: 'person' },
      },
      {
        type: 'plan/mode',
        body: { mode: 'implement', approval: 'auto-edit', previous: 'plan', by: 'person' },
      },
      {
        type: 'session/config',
        body: { option: 'approval', value: 'auto-edit', previous: 'plan', by: 'client' },
      },
      {
        type: 'session/config',
        body: { option: 'approval', value: 'read-only', previous: 'auto-edit', by: 'client' },
      },
    ]);
    const result = logEvents(fx.sessionDir, sessionId).find((e) => e.type === 'tool/result');
    expect(result?.body).toMatchObject({ outcome: 'denied' });
    expect(peer.validator.problems).toEqual([]);
  }, 120_000);

  it('offers the models of the configuration; a change is recorded and used for the next request', async () => {
    fx = await fixture([{ text: 'One.' }, { text: 'Two.' }]);
    const config = { ...fx.config(), models: [{ ...OTHER, maxOutputTokens: 4096 }] };
    peer = await connect(config);
    await peer.agent.request('initialize', { protocolVersion: 1 });
    const created = await peer.agent.request('session/new', { cwd: fx.workspace, mcpServers: [] });
    const { sessionId } = created;
    const model = created.configOptions?.find((option) => option.id === 'model');
    expect(model).toMatchObject({
      category: 'model',
      currentValue: 'openai-compatible/deepseek-v4-flash',
    });
    const values = model?.type === 'select' ? model.options : [];
    expect(JSON.stringify(values)).toContain('openai-compatible/other-model');
    await peer.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'First' }],
    });
    const changed = await peer.agent.request('session/set_config_option', {
      sessionId,
      configId: 'model',
      value: 'openai-compatible/other-model',
    });
    expect(changed.configOptions[1]).toMatchObject({
      currentValue: 'openai-compatible/other-model',
    });
    await peer.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Second' }],
    });
    expect(fx.server.requests.map((request) => request.body.model)).toEqual([
      'deepseek-v4-flash',
      'other-model',
    ]);
    const recorded = logEvents(fx.sessionDir, sessionId).filter((e) => e.type === 'session/config');
    expect(recorded.map((event) => event.body)).toEqual([
      {
        option: 'model',
        value: 'openai-compatible/other-model',
        previous: 'openai-compatible/deepseek-v4-flash',
        by: 'client',
      },
    ]);
    await expect(
      peer.agent.request('session/set_config_option', {
        sessionId,
        configId: 'model',
        value: 'openai-compatible/not-offered',
      }),
    ).rejects.toMatchObject({ code: -32602 });
    expect(peer.validator.problems).toEqual([]);
  }, 120_000);
});
