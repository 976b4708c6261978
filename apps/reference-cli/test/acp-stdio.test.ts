// `spine acp` as an editor runs it: a subprocess speaking NDJSON JSON-RPC on stdio, driven by the
// ACP SDK's own client against the loopback model server, every message validated against the
// published schema. A session driven over ACP passes `spine replay --verify` and reruns offline;
// after a SIGKILL mid-command, a new `spine acp` loads it with the recovery's verdict on the command.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { MessageValidator } from '../../../packages/acp/test/acp-schema.js';
import { BIN, isolatedEnv, modelArgs, runCli, tempFolder } from './run-cli.js';

type Message = Record<string, unknown>;

/** `spine acp` with the SDK's client on its stdio. */
function startAcp(
  args: string[],
  env: NodeJS.ProcessEnv,
): {
  child: ChildProcessWithoutNullStreams;
  agent: acp.ClientContext;
  updates: acp.SessionNotification[];
  validator: MessageValidator;
  stderr: () => string;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, [BIN, 'acp', ...args], { env, stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const validator = new MessageValidator();
  const wire = acp.ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  const check = (direction: string) =>
    new TransformStream<Message, Message>({
      transform(message, controller) {
        validator.check(direction, message);
        controller.enqueue(message);
      },
    });
  const fromAgent = check('agent→client');
  const toAgent = check('client→agent');
  void (wire.readable as unknown as ReadableStream<Message>)
    .pipeTo(fromAgent.writable)
    .catch(() => {});
  void toAgent.readable.pipeTo(wire.writable as unknown as WritableStream<Message>).catch(() => {});
  const updates: acp.SessionNotification[] = [];
  const connection = acp
    .client({ name: 'stdio-test' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .onRequest('session/request_permission', () => ({
      outcome: { outcome: 'selected', optionId: 'allow-once' },
    }))
    .connect({ readable: fromAgent.readable, writable: toAgent.writable } as unknown as acp.Stream);
  return { child, agent: connection.agent, updates, validator, stderr: () => stderr, exited };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('spine acp over stdio', () => {
  it('drives a session that passes replay --verify and reruns offline', async () => {
    const server = await createScriptedModelServer({
      replies: [
        { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo over-acp' }) }] },
        { text: 'It printed over-acp.' },
        { text: 'Second turn.' },
      ],
    });
    try {
      const cwd = tempFolder('spine-acp-stdio-');
      const { env } = isolatedEnv({ OPENAI_API_KEY: 'loopback' });
      const peer = startAcp([...modelArgs(server.baseUrl), '--approval', 'ask'], env);
      const init = await peer.agent.request('initialize', { protocolVersion: 1 });
      expect(init.agentInfo).toMatchObject({ name: 'spine' });
      const { sessionId } = await peer.agent.request('session/new', { cwd, mcpServers: [] });
      const first = await peer.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'Run echo' }],
      });
      expect(first.stopReason).toBe('end_turn');
      // Settings the editor changes are recorded, and replay and rerun still hold.
      await peer.agent.request('session/set_config_option', {
        sessionId,
        configId: 'approval',
        value: 'never-ask',
      });
      await peer.agent.request('session/set_mode', { sessionId, modeId: 'plan' });
      const second = await peer.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'Again' }],
      });
      expect(second.stopReason).toBe('end_turn');
      const output = JSON.stringify(peer.updates);
      expect(output).toContain('over-acp');
      // The editor closes the connection: the process ends the sessions and exits 0.
      peer.child.stdin.end();
      expect(await peer.exited).toBe(0);
      expect(peer.validator.problems).toEqual([]);
      const replayed = await runCli(['replay', sessionId, '--verify', '--cwd', cwd], { env });
      expect(replayed.stderr).toBe('');
      expect(replayed.code).toBe(0);
      const rerun = await runCli(['rerun', sessionId, '--cwd', cwd], { env });
      expect(rerun.code).toBe(0);
      const shown = await runCli(['show', sessionId, '--cwd', cwd], { env });
      expect(shown.stdout).toContain('[approval preset: never-ask (was ask), set by the client]');
      expect(shown.stdout).toContain('[plan mode: reads, searches and fetches only]');
    } finally {
      await server.close();
    }
  }, 240_000);

  it('loads a session killed mid-command with the verdict of crash recovery', async () => {
    const server = await createScriptedModelServer({
      replies: [
        {
          toolCalls: [
            { id: 'slow', name: 'bash', arguments: JSON.stringify({ command: 'sleep 60' }) },
          ],
        },
        { text: 'never' },
      ],
    });
    try {
      const cwd = tempFolder('spine-acp-kill-');
      const { env } = isolatedEnv({ OPENAI_API_KEY: 'loopback' });
      const args = [...modelArgs(server.baseUrl), '--approval', 'never-ask'];
      const first = startAcp(args, env);
      await first.agent.request('initialize', { protocolVersion: 1 });
      const { sessionId } = await first.agent.request('session/new', { cwd, mcpServers: [] });
      void first.agent
        .request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Sleep' }] })
        .catch(() => undefined);
      await until(
        () =>
          first.updates.some(
            (u) =>
              u.update.sessionUpdate === 'tool_call_update' && u.update.status === 'in_progress',
          ),
        'the command to start',
      );
      // Give the store a moment to put tool/started on disk, then kill without warning.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      first.child.kill('SIGKILL');
      await first.exited;
      const second = startAcp(args, env);
      await second.agent.request('initialize', { protocolVersion: 1 });
      await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
      const last = second.updates
        .filter(
          (u) => u.update.sessionUpdate === 'tool_call_update' && u.update.toolCallId === 'slow',
        )
        .at(-1)?.update;
      // The CLI keeps workspace checkpoints: recovery verified that the command changed no file,
      // and the editor is shown that verdict (the in-process test covers "outcome unknown").
      expect(last).toMatchObject({
        status: 'failed',
        _meta: { 'spine.dev/verifiedAfterCrash': 'files-changed' },
      });
      expect(JSON.stringify(last)).toContain('verified after the process stopped');
      second.child.stdin.end();
      expect(await second.exited).toBe(0);
      expect(second.validator.problems).toEqual([]);
    } finally {
      await server.close();
    }
  }, 240_000);
});
