// Sessions across connections: `session/load` replays the log as updates, byte-identical on every
// load, with a tool the process died in shown failed as "outcome unknown"; resume replays
// nothing; an unknown id is an error. `session/cancel` ends a turn mid-command with `cancelled`,
// the command's process gone and `turn/end` recorded.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Fixture, fixture, type Peer } from './acp-harness.js';

let fx: Fixture | undefined;
const peers: Peer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) await peer.close();
  await fx?.cleanup();
  fx = undefined;
});

async function open(f: Fixture, overrides: Record<string, unknown> = {}): Promise<Peer> {
  const peer = await connect(f.config(overrides), { answer: () => 'allow-once' });
  peers.push(peer);
  await peer.agent.request('initialize', { protocolVersion: 1 });
  return peer;
}

/** The serialized updates a load sent for `sessionId`. */
async function load(
  f: Fixture,
  sessionId: string,
  overrides: Record<string, unknown> = {},
): Promise<string[]> {
  const peer = await open(f, overrides);
  await peer.agent.request('session/load', { sessionId, cwd: f.workspace, mcpServers: [] });
  // Closed again, so the next load (or a process) may open it.
  await peer.agent.request('session/close', { sessionId });
  expect(peer.validator.problems).toEqual([]);
  return peer.updates.map((update) => JSON.stringify(update));
}

function until(check: () => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      if (check()) {
        clearInterval(timer);
        resolve();
      } else if (Date.now() - started > 30_000) {
        clearInterval(timer);
        reject(new Error(`timed out waiting for ${what}`));
      }
    }, 20);
  });
}

/** True while a process whose command line contains `marker` is alive. */
function running(marker: string): boolean {
  const out = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
  return out.split('\n').some((line) => line.includes(marker) && !line.includes('ps -eo'));
}

describe('sessions over ACP', () => {
  it('loads a session as the same updates twice, byte for byte', async () => {
    fx = await fixture([
      {
        reasoning: 'Let me look.',
        toolCalls: [
          { id: 'w1', name: 'write', arguments: JSON.stringify({ path: 'a.txt', content: 'A\n' }) },
        ],
      },
      { text: 'Wrote it.' },
    ]);
    const first = await open(fx);
    const { sessionId } = await first.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    await first.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Write a.txt' }],
    });
    await first.agent.request('session/close', { sessionId });
    const one = await load(fx, sessionId);
    const two = await load(fx, sessionId);
    expect(two).toEqual(one);
    const kinds = one.map(
      (line) => (JSON.parse(line) as { update: { sessionUpdate: string } }).update.sessionUpdate,
    );
    expect(kinds).toEqual([
      'session_info_update',
      'user_message_chunk',
      'agent_thought_chunk',
      'tool_call',
      'usage_update',
      'tool_call_update',
      'tool_call_update',
      'agent_message_chunk',
      'usage_update',
      'available_commands_update',
    ]);
    expect(one.join('\n')).toContain('"messageId":"spine-');
    expect(one.join('\n')).toContain('"type":"diff"');
  }, 90_000);

  it('shows a tool the process died in as failed with outcome unknown', async () => {
    const marker = `spine-acp-crash-${process.pid}`;
    fx = await fixture([
      {
        toolCalls: [
          {
            id: 'slow',
            name: 'bash',
            arguments: JSON.stringify({ command: `sleep 30; echo ${marker}` }),
          },
        ],
      },
      { text: 'never' },
    ]);
    const peer = await open(fx);
    const { sessionId } = await peer.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    const prompt = peer.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Sleep' }],
    });
    await until(
      () =>
        peer.updates.some(
          (u) => u.update.sessionUpdate === 'tool_call_update' && u.update.status === 'in_progress',
        ),
      'the command to start',
    );
    // The log as a crash mid-tool leaves it: copied while the command runs, once the store
    // has written `tool/started` (what a SIGKILL at that moment leaves on disk).
    const logFile = join(fx.sessionDir, `${sessionId}.jsonl`);
    await until(
      () => readFileSync(logFile, 'utf8').includes('"type":"tool/started"'),
      'tool/started on disk',
    );
    const crashDir = join(fx.workspace, '.crashed');
    mkdirSync(crashDir);
    copyFileSync(join(fx.sessionDir, `${sessionId}.jsonl`), join(crashDir, `${sessionId}.jsonl`));
    await peer.agent.notify('session/cancel', { sessionId });
    await prompt;
    const updates = (await load(fx, sessionId, { sessionDir: crashDir })).map(
      (line) => (JSON.parse(line) as { update: Record<string, unknown> }).update,
    );
    const last = updates.filter((u) => u.toolCallId === 'slow').at(-1);
    expect(last).toMatchObject({
      status: 'failed',
      _meta: { 'spine.dev/outcomeUnknown': true },
      content: [
        {
          type: 'content',
          content: {
            type: 'text',
            text: expect.stringContaining('\noutcome unknown: the process stopped'),
          },
        },
      ],
    });
  }, 90_000);

  it('cancels a turn mid-command: stop reason cancelled, process gone, turn/end recorded', async () => {
    const marker = `spine-acp-cancel-${process.pid}`;
    fx = await fixture([
      {
        toolCalls: [
          { name: 'bash', arguments: JSON.stringify({ command: `sleep 60; echo ${marker}` }) },
        ],
      },
      { text: 'never' },
    ]);
    const peer = await open(fx);
    const { sessionId } = await peer.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    const prompt = peer.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Sleep' }],
    });
    await until(() => running(marker), 'the command to run');
    const cancelledAt = performance.now();
    await peer.agent.notify('session/cancel', { sessionId });
    const response = await prompt;
    const tookMs = performance.now() - cancelledAt;
    expect(response.stopReason).toBe('cancelled');
    expect(running(marker)).toBe(false);
    await peer.agent.request('session/close', { sessionId });
    const log = readFileSync(join(fx.sessionDir, `${sessionId}.jsonl`), 'utf8');
    expect(log).toContain('"type":"turn/end"');
    // Reported, not asserted (no timing assertions in tests): the benchmark measures it.
    console.log(`cancel → response: ${tookMs.toFixed(0)} ms`);
  }, 90_000);

  it('resumes without replaying, and refuses an unknown id', async () => {
    fx = await fixture([{ text: 'Hi.' }, { text: 'Again.' }]);
    const first = await open(fx);
    const { sessionId } = await first.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    await first.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Hello' }],
    });
    await first.agent.request('session/close', { sessionId });
    const second = await open(fx);
    await second.agent.request('session/resume', { sessionId, cwd: fx.workspace });
    const response = await second.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Once more' }],
    });
    expect(response.stopReason).toBe('end_turn');
    const kinds = second.updates.map((u) => u.update.sessionUpdate);
    expect(kinds).not.toContain('user_message_chunk');
    expect(kinds).toContain('agent_message_chunk');
    await expect(
      second.agent.request('session/load', {
        sessionId: 'no-such-session',
        cwd: fx.workspace,
        mcpServers: [],
      }),
    ).rejects.toMatchObject({ code: -32002 });
    expect(second.validator.problems).toEqual([]);
  }, 90_000);
});
