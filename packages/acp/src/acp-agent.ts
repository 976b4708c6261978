import { isAbsolute } from 'node:path';
import type {
  AgentContext,
  InitializeResponse,
  McpServer,
  SessionUpdate,
  Stream,
} from '@agentclientprotocol/sdk';
import type { ResolvedModel, SpineConfig } from '@spine/harness';
import type { AcpSession } from './internal/acp-session.js';
import { BadCursorError, isDirectory, LIST_PAGE_SIZE, listSessions } from './internal/list.js';
import { type OpenContext, openSession } from './internal/open-session.js';
import { type MessageStream, orderedStream } from './internal/ordered-stream.js';
import { DEFAULT_PERMISSION_TIMEOUT_MS } from './internal/permissions.js';
import {
  applyModel,
  applyPreset,
  configOptions,
  isPreset,
  MODEL_OPTION,
  modelChoices,
  modeState,
  PRESET_IDS,
  PRESET_OPTION,
} from './internal/presets.js';
import { promptInput } from './internal/prompt-content.js';
import { ReplayFold } from './internal/replay.js';
import { checkCwdForm, requestErrorOf } from './internal/request-errors.js';

/** A JSON-RPC message as the SDK's message streams carry it. */
export type AcpMessage = Record<string, unknown>;

/** The connection to the client: NDJSON bytes (stdio) or already-parsed JSON-RPC messages. */
export type AcpTransport =
  | { input: ReadableStream<Uint8Array>; output: WritableStream<Uint8Array> }
  | { readable: ReadableStream<AcpMessage>; writable: WritableStream<AcpMessage> };

/** Options of {@link serveAcp}. */
export interface AcpAgentOptions {
  /** The effective configuration for a workspace (`session/new` and `session/load` name it). */
  config: (cwd: string) => SpineConfig;
  /** The model; default: resolved from the configuration. */
  model?: ResolvedModel;
  /** Version reported in `agentInfo`. */
  version: string;
  /** Load language-server tools (default: `config.lsp.enabled`). */
  lsp?: boolean;
  /** Load web tools (default: `config.web.enabled`). */
  web?: boolean;
  /** How long a permission request may wait for the client before it is a denial (default 10 min). */
  permissionTimeoutMs?: number;
  /** Sessions per `session/list` page (default 50). */
  listPageSize?: number;
  /** Reports non-fatal problems (never written to the protocol stream). */
  onWarning?: (message: string) => void;
}

/** A served connection. */
export interface AcpServer {
  /** Resolves when the client disconnected and every session was closed. */
  readonly closed: Promise<void>;
  /** Ends every turn, closes the sessions and the connection. */
  close(): Promise<void>;
}

/** Whether the configured model accepts images (advertised as `promptCapabilities.image`). */
async function configuredModelTakesImages(options: AcpAgentOptions): Promise<boolean> {
  if (options.model) return options.model.acceptsImages;
  try {
    const { resolveModel } = await import('@spine/harness');
    return (await resolveModel(options.config(process.cwd()))).acceptsImages;
  } catch {
    // An unusable configuration is reported when a session opens; advertise no images.
    return false;
  }
}

/**
 * Serves Spine's agent to one ACP client (an editor) over `transport`: sessions created, loaded
 * from the log or resumed, prompt turns streamed as updates, approvals asked through the client
 * only when Spine's policy asks a person. Policy, sandbox and log stay Spine's.
 *
 * @throws an {@link Error} when `@agentclientprotocol/sdk` cannot be loaded.
 * @example
 * ```ts
 * import { Readable, Writable } from 'node:stream';
 * import { serveAcp } from '@spine/acp';
 * import { loadConfig } from '@spine/harness';
 *
 * const server = await serveAcp(
 *   { input: Readable.toWeb(process.stdin), output: Writable.toWeb(process.stdout) },
 *   { version: '1.0.0', config: (cwd) => loadConfig({ cwd }).config },
 * );
 * await server.closed;
 * ```
 */
export async function serveAcp(
  transport: AcpTransport,
  options: AcpAgentOptions,
): Promise<AcpServer> {
  // ESM-only SDK: a real dynamic import, also from the CommonJS build.
  const acp = await import('@agentclientprotocol/sdk');
  const sessions = new Map<string, AcpSession>();
  const stream = orderedStream(
    ('input' in transport
      ? acp.ndJsonStream(transport.output, transport.input)
      : transport) as MessageStream,
    {
      // The client is gone: running turns end now, so their prompts are answered before exit.
      onInputEnd: () => {
        for (const session of sessions.values()) session.cancel();
      },
    },
  ) as Stream;
  const warn = options.onWarning ?? (() => {});
  const acceptsImages = await configuredModelTakesImages(options);
  const connection = new AbortController();
  // Updates go out in the order they were produced; a response waits for the ones before it.
  let outbox: Promise<unknown> = Promise.resolve();
  const sendTo =
    (client: AgentContext, sessionId: string) =>
    (update: SessionUpdate): void => {
      outbox = outbox
        .then(() => client.notify('session/update', { sessionId, update }))
        .catch(() => undefined);
    };
  const flushed = (): Promise<unknown> => outbox;

  const context: OpenContext = {
    sdk: acp,
    config: options.config,
    permissionTimeoutMs: options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS,
    warn,
    connection: connection.signal,
    sendTo,
    ...(options.model ? { model: options.model } : {}),
    ...(options.lsp === undefined ? {} : { lsp: options.lsp }),
    ...(options.web === undefined ? {} : { web: options.web }),
  };
  const open = async (
    client: AgentContext,
    cwd: string,
    resumeId: string | undefined,
    mcpServers: readonly McpServer[] = [],
  ): Promise<AcpSession> => {
    const session = await openSession(context, {
      client,
      cwd,
      mcpServers,
      ...(resumeId === undefined ? {} : { resumeId }),
    });
    sessions.set(session.active.session.id, session);
    return session;
  };
  // A failure the client must act on says what happened (the SDK would send a bare "Internal error").
  const explained =
    <A extends unknown[], R>(handler: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await handler(...args);
      } catch (error) {
        throw requestErrorOf(acp, error);
      }
    };
  const find = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw acp.RequestError.sessionNotFound(sessionId);
    return session;
  };

  const app = acp
    .agent({ name: 'spine' })
    .onRequest(
      'initialize',
      (): InitializeResponse => ({
        protocolVersion: acp.PROTOCOL_VERSION,
        agentInfo: { name: 'spine', title: 'Spine', version: options.version },
        authMethods: [],
        agentCapabilities: {
          loadSession: true,
          // Images only when the configured model takes them (the model table says so).
          promptCapabilities: { embeddedContext: true, image: acceptsImages, audio: false },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {}, resume: {}, close: {} },
        },
      }),
    )
    .onRequest(
      'session/new',
      explained(async ({ params, client }) => {
        const session = await open(client, params.cwd, undefined, params.mcpServers);
        const sessionId = session.active.session.id;
        session.attach();
        // After the response: the client routes updates by an id it must know first.
        setImmediate(() => sendTo(client, sessionId)(session.commandsUpdate()));
        return {
          sessionId,
          configOptions: configOptions(session.active),
          modes: modeState(session.active),
        };
      }),
    )
    .onRequest(
      'session/load',
      explained(async ({ params, client }) => {
        if (sessions.has(params.sessionId))
          throw acp.RequestError.invalidRequest(
            { sessionId: params.sessionId },
            'session is already open',
          );
        const session = await open(client, params.cwd, params.sessionId, params.mcpServers);
        const send = sendTo(client, params.sessionId);
        const fold = new ReplayFold({
          cwd: params.cwd,
          contextWindow: session.active.model.contextWindow,
        });
        let read = 0;
        for await (const event of session.active.session.readEvents({ fromSeq: 1 })) {
          for (const update of fold.next(event)) send(update);
          // Backpressure: a long log is not queued whole in memory ahead of the client.
          if (++read % 256 === 0) await flushed();
        }
        for (const update of fold.end()) send(update);
        send(session.commandsUpdate());
        await flushed();
        session.attach();
        return { configOptions: configOptions(session.active), modes: modeState(session.active) };
      }),
    )
    .onRequest(
      'session/list',
      explained(async ({ params }) => {
        const cwd = params.cwd ?? undefined;
        if (cwd !== undefined) {
          checkCwdForm(acp, cwd, isAbsolute);
          // A filter, not a workspace to open: no session can be loaded into a folder that is not
          // there, so the page is empty (and the folder's configuration is never asked for).
          if (!isDirectory(cwd)) return { sessions: [] };
        }
        try {
          return await listSessions(
            options.config(cwd ?? process.cwd()),
            params,
            options.listPageSize ?? LIST_PAGE_SIZE,
          );
        } catch (error) {
          if (error instanceof BadCursorError)
            throw acp.RequestError.invalidParams({ cursor: params.cursor }, error.message);
          throw error;
        }
      }),
    )
    .onRequest(
      'session/resume',
      explained(async ({ params, client }) => {
        if (sessions.has(params.sessionId))
          throw acp.RequestError.invalidRequest(
            { sessionId: params.sessionId },
            'session is already open',
          );
        const session = await open(client, params.cwd, params.sessionId, params.mcpServers);
        session.attach();
        setImmediate(() => sendTo(client, params.sessionId)(session.commandsUpdate()));
        return { configOptions: configOptions(session.active), modes: modeState(session.active) };
      }),
    )
    .onRequest(
      'session/close',
      explained(async ({ params }) => {
        const session = find(params.sessionId);
        sessions.delete(params.sessionId);
        await session.close('closed by the client');
        return {};
      }),
    )
    .onRequest(
      'session/prompt',
      explained(async ({ params }) => {
        const session = find(params.sessionId);
        const { model, config } = session.active;
        const images = model.acceptsImages || config.imageFallback === 'placeholder';
        const input = promptInput(session.cwd, params.prompt, { images });
        if ('problem' in input) {
          const why = input.problem.startsWith('image content')
            ? `${model.provider}/${model.modelId} does not accept images; choose a model that does`
            : input.problem;
          throw acp.RequestError.invalidParams({}, why);
        }
        const response = await session.prompt(input.text, input.images);
        await flushed();
        return response;
      }),
    )
    .onRequest(
      'session/set_config_option',
      explained(async ({ params }) => {
        const session = find(params.sessionId);
        const { configId, value } = params;
        if (configId === PRESET_OPTION && isPreset(value)) applyPreset(session.active, value);
        else if (
          configId === MODEL_OPTION &&
          typeof value === 'string' &&
          modelChoices(session.active).includes(value)
        )
          await applyModel(session.active, value);
        else
          throw acp.RequestError.invalidParams(
            { configId },
            `unknown option or value; ${PRESET_OPTION} is one of ${PRESET_IDS}, ${MODEL_OPTION} one of ${modelChoices(session.active).join(', ')}`,
          );
        return { configOptions: configOptions(session.active) };
      }),
    )
    .onRequest('session/set_mode', ({ params }) => {
      const session = find(params.sessionId);
      if (!isPreset(params.modeId))
        throw acp.RequestError.invalidParams(
          { modeId: params.modeId },
          `unknown mode; one of ${PRESET_IDS}`,
        );
      applyPreset(session.active, params.modeId);
      return {};
    })
    .onNotification('session/cancel', ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });

  const connected = app.connect(stream);
  const closeAll = async (reason: string): Promise<void> => {
    connection.abort();
    const open = [...sessions.values()];
    sessions.clear();
    await Promise.allSettled(open.map((session) => session.close(reason)));
  };
  const closed = connected.closed.then(() => closeAll('client disconnected'));
  return {
    closed,
    async close() {
      await closeAll('server closed');
      connected.close();
      await closed;
    },
  };
}
