// `session/list` through the SDK's client: the store's sessions newest first, paged by an opaque
// cursor that survives a session written between two pages, filtered by workspace, and a cursor
// the agent did not make refused as invalid params, and a workspace filter that names no folder
// answered with an empty page. Every message validated against the schema.
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
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

/** Every page of `session/list` for `cwd`, following `nextCursor` to the end. */
async function allPages(peer: Peer, cwd?: string): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await peer.agent.request('session/list', {
      ...(cwd ? { cwd } : {}),
      ...(cursor ? { cursor } : {}),
    });
    pages.push(page.sessions.map((session) => session.sessionId));
    for (const session of page.sessions) if (cwd) expect(session.cwd).toBe(cwd);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return pages;
}

describe('session/list over ACP', () => {
  it('pages newest first, filters by workspace, and keeps its place when a session is added', async () => {
    fx = await fixture([]);
    const other = join(fx.workspace, 'other');
    mkdirSync(other);
    peer = await connect(fx.config(), { listPageSize: 2 });
    const init = await peer.agent.request('initialize', { protocolVersion: 1 });
    expect(init.agentCapabilities?.sessionCapabilities?.list).toEqual({});
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) {
      const created = await peer.agent.request('session/new', {
        cwd: fx.workspace,
        mcpServers: [],
      });
      ids.push(created.sessionId);
      // Distinct modification times, so "newest first" is the creation order reversed.
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    const elsewhere = await peer.agent.request('session/new', { cwd: other, mcpServers: [] });

    const pages = await allPages(peer, fx.workspace);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual([...ids].reverse());
    expect((await allPages(peer)).flat()).toEqual([elsewhere.sessionId, ...[...ids].reverse()]);

    // A session written after the first page neither repeats nor hides one of the rest.
    const first = await peer.agent.request('session/list', { cwd: fx.workspace });
    await peer.agent.request('session/new', { cwd: fx.workspace, mcpServers: [] });
    const rest: string[] = [];
    let cursor = first.nextCursor ?? undefined;
    while (cursor) {
      const page = await peer.agent.request('session/list', { cwd: fx.workspace, cursor });
      rest.push(...page.sessions.map((session) => session.sessionId));
      cursor = page.nextCursor ?? undefined;
    }
    expect([...first.sessions.map((session) => session.sessionId), ...rest]).toEqual(
      [...ids].reverse(),
    );
    expect(peer.validator.problems).toEqual([]);
  }, 60_000);

  it('refuses a cursor it did not make and a relative cwd as invalid params', async () => {
    fx = await fixture([]);
    peer = await connect(fx.config(), { listPageSize: 1 });
    await peer.agent.request('initialize', { protocolVersion: 1 });
    await peer.agent.request('session/new', { cwd: fx.workspace, mcpServers: [] });
    await peer.agent.request('session/new', { cwd: fx.workspace, mcpServers: [] });
    const made = await peer.agent.request('session/list', {});
    expect(made.nextCursor).toEqual(expect.any(String));
    await expect(peer.agent.request('session/list', { cwd: 'relative/dir' })).rejects.toMatchObject(
      { code: -32602 },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 64 }), async (cursor) => {
        fc.pre(cursor !== '' && cursor !== made.nextCursor);
        try {
          const page = await peer!.agent.request('session/list', { cursor });
          // Only a string that decodes to a (time, id) pair is taken; it lists what is older.
          expect(page.sessions.length).toBeLessThanOrEqual(1);
        } catch (error) {
          expect(error).toMatchObject({ code: -32602 });
        }
      }),
      { numRuns: 60 },
    );
    expect(peer.validator.problems).toEqual([]);
  }, 60_000);

  it('lists nothing for a cwd that is not a folder, and refuses a cwd with NUL like session/new', async () => {
    fx = await fixture([]);
    const workspace = fx.workspace;
    const base = fx.config();
    // Like `spine acp`'s: the configuration of a workspace that is not a directory is an error.
    const asked: string[] = [];
    peer = await connect((cwd) => {
      asked.push(cwd);
      if (!statSync(cwd).isDirectory()) throw new Error(`${cwd} is not a directory`);
      return base;
    });
    await peer.agent.request('initialize', { protocolVersion: 1 });
    const created = await peer.agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const file = join(workspace, 'a-file');
    writeFileSync(file, 'not a folder');
    const notFolders = [join(workspace, 'missing'), join(workspace, 'missing', 'deeper'), file];
    for (const cwd of notFolders) {
      await expect(peer.agent.request('session/list', { cwd })).resolves.toEqual({ sessions: [] });
    }
    for (const cwd of notFolders) expect(asked).not.toContain(cwd);
    for (const [cwd, message] of [
      ['relative/dir', 'cwd must be an absolute path'],
      ['', 'cwd must be an absolute path'],
      [`${workspace}/a\0b`, 'cwd contains a NUL character'],
    ] as const) {
      const listed = peer.agent.request('session/list', { cwd });
      await expect(listed).rejects.toMatchObject({ code: -32602 });
      await expect(listed).rejects.toThrow(message);
      const opened = peer.agent.request('session/new', { cwd, mcpServers: [] });
      await expect(opened).rejects.toMatchObject({ code: -32602 });
      await expect(opened).rejects.toThrow(message);
    }
    // The folder that exists still lists its session.
    const listed = await peer.agent.request('session/list', { cwd: workspace });
    expect(listed.sessions.map((session) => session.sessionId)).toEqual([created.sessionId]);
    expect(peer.validator.problems).toEqual([]);
  }, 60_000);
});
