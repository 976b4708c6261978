// A turn interrupted from the client's side: the client hanging up while a permission request
// is pending (a recorded denial, the turn ended and recorded, the log whole and loadable), and
// `session/cancel` while text streams (stop reason cancelled, `turn/end` recorded).
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
function logEvents(sessionDir: string, id: string): { type: string; body: unknown }[] {
  return readFileSync(join(sessionDir, `${id}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; body: unknown });
}

/** Resolves once `check` holds (polling; the test's own timeout bounds it). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('a turn interrupted by the client', () => {
  it('records a denial when the client disconnects during a permission request, and loses nothing', async () => {
    fx = await fixture([
      { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'touch made.txt' }) }] },
      { text: 'Denied, then.' },
    ]);
    const first = await connect(fx.config(), { answer: () => 'never' });
    await first.agent.request('initialize', { protocolVersion: 1 });
    const { sessionId } = await first.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    const prompt = first.agent
      .request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Touch' }] })
      .then(
        () => 'answered',
        () => 'connection closed',
      );
    await until(() => first.permissions.length === 1);
    // The client hangs up with the question unanswered; the server closes every session.
    await first.close();
    expect(await prompt).toBe('connection closed');
    expect(first.validator.problems).toEqual([]);
    expect(() => readFileSync(join(fx!.workspace, 'made.txt'))).toThrow();
    const events = logEvents(fx.sessionDir, sessionId);
    expect(events.find((e) => e.type === 'tool/approval')?.body).toMatchObject({
      decision: 'deny',
    });
    expect(events.find((e) => e.type === 'tool/result')?.body).toMatchObject({
      outcome: 'denied',
    });
    expect(events.filter((e) => e.type === 'turn/start')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'turn/end')).toHaveLength(1);
    // A new connection loads the whole session, the denied call included.
    peer = await connect(fx.config());
    await peer.agent.request('initialize', { protocolVersion: 1 });
    await peer.agent.request('session/load', { sessionId, cwd: fx.workspace, mcpServers: [] });
    const calls = peer.updates
      .map((update) => update.update)
      .filter((update) => update.sessionUpdate === 'tool_call_update' && update.status);
    expect(calls.at(-1)).toMatchObject({ status: 'failed' });
    expect(peer.validator.problems).toEqual([]);
  }, 120_000);

  it('cancels while text streams: stop reason cancelled, turn/end recorded', async () => {
    fx = await fixture([
      { stallAfterChunks: 3, text: 'Streaming a long answer that never finishes. '.repeat(4) },
      { text: 'Still here.' },
    ]);
    peer = await connect(fx.config());
    await peer.agent.request('initialize', { protocolVersion: 1 });
    const { sessionId } = await peer.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    const prompt = peer.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Talk' }],
    });
    await until(() => kinds(peer!, sessionId).includes('agent_message_chunk'));
    const cancelledAt = performance.now();
    await peer.agent.notify('session/cancel', { sessionId });
    const response = await prompt;
    const tookMs = performance.now() - cancelledAt;
    expect(response.stopReason).toBe('cancelled');
    // The session goes on: the next prompt is a turn of its own.
    const next = await peer.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Again' }],
    });
    expect(next.stopReason).toBe('end_turn');
    await peer.agent.request('session/close', { sessionId });
    const ends = logEvents(fx.sessionDir, sessionId).filter((e) => e.type === 'turn/end');
    expect(ends.map((e) => (e.body as { reason: string }).reason)).toEqual([
      'aborted',
      'completed',
    ]);
    expect(peer.validator.problems).toEqual([]);
    // Reported, not asserted (no timing assertions in tests): the benchmark measures it.
    console.log(`cancel during streamed text → response: ${tookMs.toFixed(0)} ms`);
  }, 120_000);
});
