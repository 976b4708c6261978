import { createServer, type Server } from 'node:net';
import type { ChildEndBody, TurnEndBody } from '@spine/protocol';
import { detectSandbox } from '@spine/tool-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { childLinks, replayTree } from '../src/index.js';
import {
  call,
  childEvents,
  createTree,
  markerOf,
  results,
  type Tree,
  taskCall,
} from './harness.js';

const trees: Tree[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const tree of trees.splice(0)) await tree.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('abort', () => {
  it('stops the children when the parent is aborted; both sessions end aborted and the parent goes on', async () => {
    const tree = await createTree({
      scripts: {
        parent: [
          { toolCalls: [taskCall('call_a', 'explore', 'a'), taskCall('call_b', 'explore', 'b')] },
          { text: 'Starting over after the abort.' },
        ],
        a: [{ stallAfterChunks: 1 }],
        b: [{ stallAfterChunks: 1 }],
      },
    });
    trees.push(tree);
    const controller = new AbortController();
    const running = tree.agent.run('[[parent]] investigate', { signal: controller.signal });
    await until(
      () => ['a', 'b'].every((m) => tree.server?.requests.some((r) => markerOf(r) === m)),
      'both children to call the model',
    );
    controller.abort(new Error('stopped by the user'));
    const result = await running;
    expect(result.reason).toBe('aborted');
    const ends = tree.session
      .events()
      .filter((e) => e.type === 'agent/child/end')
      .map((e) => e.body as ChildEndBody);
    expect(ends.map((e) => e.reason).sort()).toEqual(['aborted', 'aborted']);
    for (const index of [0, 1]) {
      const events = await childEvents(tree, index);
      const turnEnd = events.filter((e) => e.type === 'turn/end').at(-1)?.body as TurnEndBody;
      expect(turnEnd.reason).toBe('aborted');
    }
    // Every task call has a result; the next turn runs normally.
    expect(
      results(tree.session.events())
        .map((r) => r.toolCallId)
        .sort(),
    ).toEqual(['call_a', 'call_b']);
    const next = await tree.agent.run('go on');
    expect(next.reason).toBe('completed');
    expect(next.text).toBe('Starting over after the abort.');
    await tree.session.flush();
    const report = await replayTree(tree.store, tree.session.id);
    expect(report.sessions.map((s) => s.problems)).toEqual([[], [], []]);
    expect(report.ok).toBe(true);
    expect(childLinks(tree.session.events())).toHaveLength(2);
  }, 60_000);
});

describe('network', () => {
  it('refuses a child’s connection when the parent has no network (real bubblewrap)', async () => {
    const backend = await detectSandbox();
    if (!backend)
      throw new Error(
        'bubblewrap (bwrap) is required for this test: apt-get install bubblewrap (scripts/system-deps.sh)',
      );
    let connected = 0;
    const listener = createServer((socket) => {
      connected++;
      socket.end('hello\n');
    });
    servers.push(listener);
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as { port: number }).port;
    const probe = `node -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>{console.log('CONNECTED');process.exit(0)}).on('error',(e)=>{console.log('REFUSED '+e.code);process.exit(3)})"`;
    const tree = await createTree({
      scripts: {
        parent: [
          { toolCalls: [taskCall('call_g', 'general', 'g', 'reach the server')] },
          { text: 'done' },
        ],
        g: [
          { toolCalls: [call('g1', 'bash', { command: probe })] },
          { text: 'The network is closed.' },
        ],
      },
      sandboxBackend: backend,
    });
    trees.push(tree);
    expect((await tree.agent.run('[[parent]] go')).reason).toBe('completed');
    const bash = results(await childEvents(tree))[0];
    expect(bash?.toolName).toBe('bash');
    expect(bash?.content).toContain('REFUSED');
    expect(bash?.content).not.toContain('CONNECTED');
    expect(connected).toBe(0);
    const parent = results(tree.session.events())[0];
    expect(parent?.content).toContain(`commands run: ${probe}`);
  }, 60_000);
});
