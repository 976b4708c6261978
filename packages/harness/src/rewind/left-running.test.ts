// A crash left an unsandboxed command running (a real process tagged with its session and call,
// as the bash tool tags it): before an interrupted call is answered, the resume stops it, and the
// result says so, with or without workspace checkpoints. A command that could not be stopped or
// looked for never gets a verified verdict.
import { spawn } from 'node:child_process';
import { existsSync, promises as fs, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolResultBody } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { findToolCallProcesses, TOOL_CALL_ENV, toolCallTag } from '@spine/tool-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../config/schema.js';
import { checkpointStoreFor } from './checkpoint-store.js';
import { leftRunningResult, mayVerify, stopLeftRunning } from './left-running.js';
import { answerInterruptedCallsIn } from './recovery.js';

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A session whose `bash` call b1 reached `tool/started`, its command still running. */
async function crashedWithOrphan(checkpoints: boolean) {
  const root = mkdtempSync(join(tmpdir(), 'spine-left-running-'));
  roots.push(root);
  const workspace = join(root, 'workspace');
  await fs.mkdir(workspace);
  const config = { ...defaultConfig({}), sessionDir: join(root, 'sessions') };
  config.rewind = { ...config.rewind, checkpoints };
  const store = createJsonlStore({ dir: config.sessionDir, fsync: 'never' });
  const session = await Session.create({ store, cwd: workspace });
  const at = { turn: 1, step: 1 };
  const command = 'touch made.txt; sleep 300; touch late.txt';
  const args = JSON.stringify({ command });
  session.append('turn/start', {}, { turn: 1, step: 0 });
  session.append(
    'user/message',
    { content: 'go', source: 'user' },
    { turn: 1, step: 0, surfaceOp: { op: 'append' } },
  );
  session.append('step/start', {}, at);
  session.append(
    'assistant/message',
    {
      content: [{ type: 'tool-call', id: 'b1', name: 'bash', arguments: args }],
      finishReason: 'tool-calls',
    },
    { ...at, surfaceOp: { op: 'append' } },
  );
  if (checkpoints) {
    const checkpoint = await (await checkpointStoreFor(config, workspace)).checkpoint();
    session.append(
      'workspace/checkpoint',
      { id: checkpoint.id, store: 'git', reason: 'step', scope: 'workspace', changes: [] },
      at,
    );
  }
  session.append('tool/started', { toolCallId: 'b1', toolName: 'bash', arguments: args }, at);
  await session.close();
  const tag = toolCallTag(session.id, 'b1');
  spawn('/bin/bash', ['-c', command], {
    cwd: workspace,
    env: { PATH: process.env.PATH, [TOOL_CALL_ENV]: tag },
    detached: true,
    stdio: 'ignore',
  }).unref();
  for (let i = 0; i < 200 && (findToolCallProcesses(tag)?.length ?? 0) < 2; i++)
    await new Promise((resolve) => setTimeout(resolve, 25));
  return { store, config, workspace, id: session.id, tag };
}

async function answer(orphan: Awaited<ReturnType<typeof crashedWithOrphan>>) {
  const session = await Session.open({ store: orphan.store, id: orphan.id, recover: false });
  try {
    const answered = await answerInterruptedCallsIn(session, 1, {
      config: orphan.config,
      cwd: orphan.workspace,
    });
    const results: ToolResultBody[] = [];
    for await (const event of session.readEvents({ fromSeq: 1 }))
      if (event.type === 'tool/result') results.push(event.body as ToolResultBody);
    return { answered, results };
  } finally {
    await session.close();
  }
}

describe.runIf(process.platform === 'linux')('interrupted commands left running', () => {
  it('are stopped before the checkpoint verdict, which then says they were stopped', async () => {
    const orphan = await crashedWithOrphan(true);
    expect(findToolCallProcesses(orphan.tag)?.length).toBeGreaterThan(0);
    const { answered, results } = await answer(orphan);
    expect(answered).toBe(1);
    expect(findToolCallProcesses(orphan.tag)).toEqual([]);
    expect(results[0]?.content).toMatch(
      /^\[this command was still running when the session resumed \(pids \d+, \d+\); Spine stopped it .*\] verified after the process stopped while this tool was running: the command changed these workspace files before it stopped .*A made\.txt/,
    );
    expect(results[0]?.meta).toMatchObject({
      verdict: 'files-changed',
      leftRunning: 'stopped',
      changedFiles: ['added made.txt'],
    });
    expect(existsSync(join(orphan.workspace, 'late.txt'))).toBe(false);
  }, 60_000);

  it('are stopped without checkpoints too, and answered "outcome unknown" saying so', async () => {
    const orphan = await crashedWithOrphan(false);
    const { answered, results } = await answer(orphan);
    expect(answered).toBe(1);
    expect(findToolCallProcesses(orphan.tag)).toEqual([]);
    expect(results[0]).toMatchObject({ outcome: 'unknown', meta: { leftRunning: 'stopped' } });
    expect(results[0]?.content).toMatch(/Spine stopped it .*\] outcome unknown: Spine stopped/);
  }, 60_000);

  it('leaves a call whose command is gone to the checks as before', async () => {
    expect(
      await stopLeftRunning('no-such-session', [{ toolCallId: 'b1', toolName: 'bash' }]),
    ).toEqual(new Map());
  });
});

describe('what a resume may say of a command', () => {
  it('never verifies one still running, or one it could not look for', () => {
    expect(mayVerify(undefined, 'bash')).toBe(true);
    expect(mayVerify({ state: 'stopped', pids: [5] }, 'bash')).toBe(true);
    expect(mayVerify({ state: 'running', pids: [5] }, 'bash')).toBe(false);
    expect(mayVerify({ state: 'unchecked' }, 'bash')).toBe(false);
    expect(mayVerify({ state: 'unchecked' }, 'write')).toBe(true);
  });

  it('says a command it could not stop is still running and its outcome not final', () => {
    const body = leftRunningResult(
      { toolCallId: 'b1', toolName: 'bash' },
      { state: 'running', pids: [41, 42] },
    );
    expect(body.content).toMatch(/^outcome not final: this command was still running/);
    expect(body.content).toContain('kill 41 42');
    expect(body.content).not.toContain('verified');
    expect(body).toMatchObject({
      isError: true,
      outcome: 'unknown',
      meta: { runningPids: [41, 42] },
    });
  });
});
