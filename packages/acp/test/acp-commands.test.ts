// `/rewind` and `/fork` sent as prompts by the SDK's client: a dry run names what would change, a
// rewind puts the workspace back and records `workspace/restored` (over files changed outside
// Spine only once the client allows it with session/request_permission, or with --yes), a fork is a new session the
// client loads (its history replayed) and lists. Every message validated against the schema.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/** The text of the agent message chunks received for `sessionId` since `from`. */
function said(peer: Peer, sessionId: string, from: number): string {
  return peer.updates
    .slice(from)
    .filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'agent_message_chunk')
    .map((u) => (u.update as { content: { text?: string } }).content.text ?? '')
    .join('');
}

/** Sends `text` as a prompt; resolves with what the agent said in answer. */
async function command(peer: Peer, sessionId: string, text: string): Promise<string> {
  const from = peer.updates.length;
  const response = await peer.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text }],
  });
  expect(response.stopReason).toBe('end_turn');
  return said(peer, sessionId, from);
}

describe('slash commands over ACP', () => {
  it('rewinds the workspace (dry run first; outside changes kept when the client rejects, overwritten with --yes) and forks', async () => {
    fx = await fixture([
      {
        toolCalls: [
          { name: 'write', arguments: JSON.stringify({ path: 'notes.txt', content: 'new\n' }) },
        ],
      },
      { text: 'Written.' },
    ]);
    // Checkpoints live beside the sessions, which must be outside the workspace.
    const sessionDir = mkdtempSync(join(tmpdir(), 'spine-acp-sessions-'));
    // The client rejects overwriting outside changes (only the rewind asks: edits are auto).
    peer = await connect(fx.config({ approval: 'auto-edit', sessionDir }), {
      answer: () => 'reject-once',
    });
    await peer.agent.request('initialize', { protocolVersion: 1 });
    const { sessionId } = await peer.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    await command(peer, sessionId, 'Write the notes');
    const notes = join(fx.workspace, 'notes.txt');
    expect(readFileSync(notes, 'utf8')).toBe('new\n');

    expect(await command(peer, sessionId, '/rewind')).toMatch(/^usage: \/rewind/);
    expect(await command(peer, sessionId, '/rewind nowhere')).toMatch(/expected a turn/);
    const dry = await command(peer, sessionId, '/rewind 1 --dry-run');
    expect(dry).toMatch(/dry run\) to seq \d+ would change 1 file\(s\):\n {2}\w+ notes\.txt/);
    expect(readFileSync(notes, 'utf8')).toBe('new\n');
    // A change made outside Spine: the client is asked, rejects, and the file is kept.
    writeFileSync(notes, 'by a person\n');
    expect(peer.permissions).toEqual([]);
    expect(await command(peer, sessionId, '/rewind 1')).toMatch(/rewind refused: 1 file/);
    expect(readFileSync(notes, 'utf8')).toBe('by a person\n');
    expect(peer.permissions).toHaveLength(1);
    expect(peer.permissions[0]).toMatchObject({
      sessionId,
      toolCall: { kind: 'edit', locations: [{ path: notes }] },
    });
    expect(peer.permissions[0]?.options.map((option) => option.kind)).toEqual([
      'allow_once',
      'reject_once',
    ]);
    // --yes overwrites without asking.
    expect(await command(peer, sessionId, '/rewind 1 --yes')).toMatch(
      /rewound the workspace to seq \d+: 1 file/,
    );
    expect(existsSync(notes)).toBe(false);
    expect(peer.permissions).toHaveLength(1);

    const from = peer.updates.length;
    const forkText = await command(peer, sessionId, '/fork');
    const forked = /into (\S+);/.exec(forkText)?.[1];
    expect(forked).toBeDefined();
    const chunk = peer.updates
      .slice(from)
      .find((u) => u.update.sessionUpdate === 'agent_message_chunk');
    expect(chunk?.update._meta).toMatchObject({ spine: { forkedSessionId: forked } });
    expect(await command(peer, sessionId, '/fork 0')).toMatch(/^usage: \/fork \[seq\]/);
    await peer.agent.request('session/close', { sessionId });
    const log = readFileSync(join(sessionDir, `${sessionId}.jsonl`), 'utf8');
    expect(log).toContain('"type":"workspace/restored"');
    expect(existsSync(join(sessionDir, `${forked}.jsonl`))).toBe(true);

    // The client loads the fork: the parent's turn is replayed into it.
    const loadFrom = peer.updates.length;
    await peer.agent.request('session/load', {
      sessionId: forked!,
      cwd: fx.workspace,
      mcpServers: [],
    });
    expect(said(peer, forked!, loadFrom)).toContain('Written.');
    const listed = await peer.agent.request('session/list', { cwd: fx.workspace });
    expect(listed.sessions.map((session) => session.sessionId)).toContain(forked);
    expect(listed.sessions.find((s) => s.sessionId === forked)?._meta).toMatchObject({
      spine: { parent: sessionId },
    });
    expect(peer.validator.problems).toEqual([]);
    rmSync(sessionDir, { recursive: true, force: true });
  }, 120_000);

  it('overwrites outside changes on /rewind once the client allows it', async () => {
    fx = await fixture([
      {
        toolCalls: [
          { name: 'write', arguments: JSON.stringify({ path: 'notes.txt', content: 'new\n' }) },
        ],
      },
      { text: 'Written.' },
    ]);
    const sessionDir = mkdtempSync(join(tmpdir(), 'spine-acp-sessions-'));
    peer = await connect(fx.config({ approval: 'auto-edit', sessionDir }), {
      answer: () => 'allow-once',
    });
    await peer.agent.request('initialize', { protocolVersion: 1 });
    const { sessionId } = await peer.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    await command(peer, sessionId, 'Write the notes');
    const notes = join(fx.workspace, 'notes.txt');
    writeFileSync(notes, 'by a person\n');
    expect(await command(peer, sessionId, '/rewind 1')).toMatch(
      /rewound the workspace to seq \d+: 1 file/,
    );
    expect(existsSync(notes)).toBe(false);
    expect(peer.permissions).toHaveLength(1);
    expect(peer.permissions[0]?.toolCall.locations).toEqual([{ path: notes }]);
    await peer.agent.request('session/close', { sessionId });
    expect(readFileSync(join(sessionDir, `${sessionId}.jsonl`), 'utf8')).toContain(
      '"type":"workspace/restored"',
    );
    expect(peer.validator.problems).toEqual([]);
    rmSync(sessionDir, { recursive: true, force: true });
  }, 120_000);
});
