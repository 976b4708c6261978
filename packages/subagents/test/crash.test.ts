import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildEndBody, SessionEvent, ToolResultBody, TurnEndBody } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { afterEach, describe, expect, it } from 'vitest';
import { childLinks, recoverChildren, replayTree } from '../src/index.js';
import {
  createRoutedServer,
  createTree,
  markerOf,
  results,
  type Tree,
  taskCall,
  writeWorkspace,
} from './harness.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const childScript = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const of = (events: readonly SessionEvent[], type: string) => events.filter((e) => e.type === type);

async function readAll(sessionDir: string, id: string): Promise<readonly SessionEvent[]> {
  const session = await Session.open({
    store: createJsonlStore({ dir: sessionDir }),
    id,
    readOnly: true,
  });
  const events = session.events();
  await session.close();
  return events;
}

describe('a crash while a child runs', () => {
  it('SIGKILL mid-children: reopening closes both parallel children and answers their task calls "unknown" in call order, never an orphan', async () => {
    const server = await createRoutedServer({
      parent: [
        { toolCalls: [taskCall('call_a', 'explore', 'a'), taskCall('call_b', 'explore', 'b')] },
        { text: 'I will check again.' },
      ],
      a: [{ stallAfterChunks: 1 }],
      b: [{ stallAfterChunks: 1 }],
    });
    const workspace = mkdtempSync(join(tmpdir(), 'spine-sub-crash-ws-'));
    const sessionDir = mkdtempSync(join(tmpdir(), 'spine-sub-crash-sessions-'));
    writeWorkspace(workspace);
    cleanups.push(async () => {
      await server.close();
      rmSync(workspace, { recursive: true, force: true });
      rmSync(sessionDir, { recursive: true, force: true });
    });
    const child: ChildProcess = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        childScript,
        JSON.stringify({ baseUrl: server.baseUrl, sessionDir, workspace }),
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    cleanups.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let output = '';
    let errors = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    const deadline = Date.now() + 60_000;
    while (!['a', 'b'].every((m) => server.requests.some((r) => markerOf(r) === m))) {
      if (child.exitCode !== null) throw new Error(`child exited early: ${output}\n${errors}`);
      if (Date.now() > deadline)
        throw new Error(`the subagent never called the model: ${output}\n${errors}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The children's own events reach their files in a group shortly after (a request carries no
    // side effect, so it is not synced before it is sent): kill once all three logs hold an open
    // turn, so that the interrupted turns are what recovery closes.
    const turnsOnDisk = (): boolean => {
      const files = readdirSync(sessionDir).filter((name) => name.endsWith('.jsonl'));
      return (
        files.length >= 3 &&
        files.every((name) =>
          readFileSync(join(sessionDir, name), 'utf8').includes('"type":"turn/start"'),
        )
      );
    };
    while (!turnsOnDisk()) {
      if (Date.now() > deadline) throw new Error(`the children's turns never reached disk`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const sessionId = /session (\S+)/.exec(output)?.[1] as string;
    expect(sessionId).toBeTruthy();

    const store = createJsonlStore({ dir: sessionDir });
    const recovered = await recoverChildren(store, sessionId);
    expect(recovered).toEqual([
      expect.objectContaining({ toolCallId: 'call_a', reason: 'unknown', answered: true }),
      expect.objectContaining({ toolCallId: 'call_b', reason: 'unknown', answered: true }),
    ]);
    const parent = await readAll(sessionDir, sessionId);
    // Both parallel children answered, in call order.
    expect(results(parent).map((r) => [r.toolCallId, r.outcome])).toEqual([
      ['call_a', 'unknown'],
      ['call_b', 'unknown'],
    ]);
    const answer = results(parent)[0] as ToolResultBody;
    expect(answer).toMatchObject({ toolCallId: 'call_a', outcome: 'unknown', isError: true });
    expect(answer.content).toMatch(/^outcome unknown: the process stopped/);
    expect(answer.content).toContain('files changed: none');
    const link = childLinks(parent)[0];
    expect(link?.end?.reason).toBe('unknown');
    const childLog = await readAll(sessionDir, link?.start.sessionId as string);
    expect((of(childLog, 'turn/end').at(-1)?.body as TurnEndBody | undefined)?.reason).toBe(
      'interrupted',
    );
    // A second recovery has nothing left to do.
    expect(await recoverChildren(store, sessionId)).toEqual([]);
    const report = await replayTree(store, sessionId);
    expect(report.sessions.map((s) => s.problems)).toEqual([[], [], []]);
    expect(report.ok).toBe(true);

    // The parent resumes: a new turn on the reopened session sees the unknown result.
    const tree: Tree = await createTree({ server, workspace, sessionDir });
    cleanups.push(() => tree.close());
    const reopened = await Session.open({ store: tree.store, id: sessionId });
    cleanups.push(() => reopened.close());
    const { createAgent, SystemPrompt } = await import('@spine/agent-loop');
    const agent = createAgent({
      session: reopened,
      model: (await import('@spine/llm')).createOpenAICompatibleModel({
        baseUrl: server.baseUrl,
        apiKey: 'k',
        provider: 'deepseek',
      }),
      modelId: 'deepseek-v4-flash',
      tools: tree.runtime,
      systemPrompt: new SystemPrompt(
        'You are a careful coding agent. Delegate with the task tool.',
      ),
    });
    const next = await agent.run('what happened?');
    expect(next.reason).toBe('completed');
    expect(next.text).toBe('I will check again.');
  }, 90_000);

  it('a child that finished before the parent recorded it gives the parent its verified answer', async () => {
    const tree = await createTree({
      scripts: {
        parent: [{ toolCalls: [taskCall('call_a', 'explore', 'a')] }, { text: 'done' }],
        a: [{ text: 'computeTotal is at src/math.ts:1.' }],
      },
    });
    cleanups.push(() => tree.close());
    expect((await tree.agent.run('[[parent]] find it')).reason).toBe('completed');
    await tree.session.close();
    // Cut the parent's log where the process would have died: after the child's turn ended,
    // before the parent wrote agent/child/end and the task call's result.
    const file = join(tree.sessionDir, `${tree.session.id}.jsonl`);
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    const cut = lines.findIndex((line) => JSON.parse(line).type === 'agent/child/end');
    writeFileSync(file, `${lines.slice(0, cut).join('\n')}\n`);

    const recovered = await recoverChildren(tree.store, tree.session.id);
    expect(recovered).toEqual([expect.objectContaining({ reason: 'completed', answered: true })]);
    const parent = await readAll(tree.sessionDir, tree.session.id);
    const answer = results(parent)[0] as ToolResultBody;
    expect(answer).toMatchObject({ toolCallId: 'call_a', outcome: 'ok', isError: false });
    expect(answer.content).toContain('computeTotal is at src/math.ts:1.');
    expect((of(parent, 'agent/child/end')[0]?.body as ChildEndBody | undefined)?.reason).toBe(
      'completed',
    );
  }, 60_000);
});
