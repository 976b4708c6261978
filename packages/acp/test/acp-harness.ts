// The peer for ACP tests: the SDK's own client, connected to Spine's agent in-process through
// message streams that JSON round-trip and validate every message both ways.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { loadConfig, type SpineConfig } from '@spine/harness';
import { createScriptedModelServer, type ScriptedReply } from '@spine/llm/testing';
import { type AcpMessage, type AcpServer, serveAcp } from '../src/index.js';
import { MessageValidator } from './acp-schema.js';

/** A workspace, its session directory and a scripted model server. */
export interface Fixture {
  workspace: string;
  sessionDir: string;
  server: Awaited<ReturnType<typeof createScriptedModelServer>>;
  config: (overrides?: Record<string, unknown>) => SpineConfig;
  cleanup(): Promise<void>;
}

/** A fresh workspace and a model server answering `replies` in order. */
export async function fixture(replies: ScriptedReply[]): Promise<Fixture> {
  const workspace = mkdtempSync(join(tmpdir(), 'spine-acp-'));
  const sessionDir = join(workspace, '.sessions');
  const server = await createScriptedModelServer({ replies });
  return {
    workspace,
    sessionDir,
    server,
    config: (overrides = {}) =>
      loadConfig({
        cwd: workspace,
        env: {
          ...process.env,
          OPENAI_API_KEY: 'loopback',
          SPINE_CONFIG_HOME: join(workspace, '.config-home'),
        },
        flags: {
          model: 'openai-compatible/deepseek-v4-flash',
          baseUrl: server.baseUrl,
          sessionDir,
          approval: 'ask',
          ...overrides,
        },
      }).config,
    async cleanup() {
      await server.close();
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/** How the test client answers permission requests. */
export type PermissionAnswer = 'allow-once' | 'allow-always' | 'reject-once' | 'cancel' | 'never';

/** A connected client with everything it received. */
export interface Peer {
  agent: acp.ClientContext;
  updates: acp.SessionNotification[];
  permissions: acp.RequestPermissionRequest[];
  validator: MessageValidator;
  server: AcpServer;
  connection: acp.ClientConnection;
  /** Sends a raw message (hostile input) and resolves with the response to its id. */
  raw(message: AcpMessage): Promise<AcpMessage>;
  close(): Promise<void>;
}

/** A pass-through that JSON round-trips and validates each message. */
export function validating(
  validator: MessageValidator,
  direction: string,
  tap?: (message: AcpMessage) => void,
): TransformStream<AcpMessage, AcpMessage> {
  return new TransformStream({
    transform(message, controller) {
      const copy = JSON.parse(JSON.stringify(message)) as AcpMessage;
      validator.check(direction, copy, copy.id === 'hostile' || copy.id === 'raw');
      tap?.(copy);
      controller.enqueue(copy);
    },
  });
}

/** Serves Spine to the SDK's client in-process. */
export async function connect(
  config: SpineConfig | ((cwd: string) => SpineConfig),
  options: {
    answer?: () => PermissionAnswer;
    permissionTimeoutMs?: number;
    listPageSize?: number;
  } = {},
): Promise<Peer> {
  const validator = new MessageValidator();
  const rawWaiting = new Map<string, (message: AcpMessage) => void>();
  const toAgent = validating(validator, 'client→agent');
  const toClient = validating(validator, 'agent→client', (message) => {
    const id = String(message.id);
    const waiting = rawWaiting.get(id);
    if (waiting && !('method' in message)) {
      rawWaiting.delete(id);
      waiting(message);
    }
  });
  const server = await serveAcp(
    { readable: toAgent.readable, writable: toClient.writable },
    {
      version: '0.0.0-test',
      config: typeof config === 'function' ? config : () => config,
      lsp: false,
      web: false,
      ...(options.permissionTimeoutMs ? { permissionTimeoutMs: options.permissionTimeoutMs } : {}),
      ...(options.listPageSize ? { listPageSize: options.listPageSize } : {}),
    },
  );
  const updates: acp.SessionNotification[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const client = acp
    .client({ name: 'test-client' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .onRequest('session/request_permission', async ({ params, signal }) => {
      permissions.push(params);
      const answer = options.answer?.() ?? 'allow-once';
      if (answer === 'cancel') return { outcome: { outcome: 'cancelled' } };
      if (answer === 'never')
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      if (answer === 'never') return { outcome: { outcome: 'cancelled' } };
      return { outcome: { outcome: 'selected', optionId: answer } };
    });
  // The client writes through its own tee so raw hostile messages share the same wire.
  const writer = toAgent.writable.getWriter();
  const clientWritable = new WritableStream<AcpMessage>({
    write: (message) => writer.write(message),
    close: () => writer.close(),
  });
  const connection = client.connect({
    readable: toClient.readable,
    writable: clientWritable,
  } as unknown as acp.Stream);
  return {
    agent: connection.agent,
    updates,
    permissions,
    validator,
    server,
    connection,
    raw(message) {
      return new Promise((resolve) => {
        rawWaiting.set(String(message.id), resolve);
        void writer.write(message);
      });
    },
    async close() {
      // The client hangs up: its end of the wire closes, as stdin's EOF does over stdio.
      connection.close();
      await writer.close().catch(() => undefined);
      await server.closed;
      // Every message of every test, both ways, validated against the published schema.
      if (validator.problems.length > 0)
        throw new Error(`messages that do not validate:\n${validator.problems.join('\n')}`);
    },
  };
}

/** The `sessionUpdate` kinds received for `sessionId`, in order. */
export function kinds(peer: Peer, sessionId: string): string[] {
  return peer.updates
    .filter((update) => update.sessionId === sessionId)
    .map((update) => update.update.sessionUpdate);
}
