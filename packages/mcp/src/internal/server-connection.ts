import {
  type OAuthClientProvider,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type Prompt,
  type Resource,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpCommandWrapper } from '../command.js';
import { isStdioServer, type McpServerConfig } from '../config.js';
import { McpServerUnavailableError } from '../errors.js';
import type { McpElicitationHandler, McpSamplingHandler } from '../requests.js';
import { allPages, finishAuthorization, refusal, wait } from './connection-helpers.js';
import { type Redactor, redactDeep, StreamRedactor } from './redact.js';
import { createStdioTransport } from './stdio-transport.js';
import { listTools, type SkippedTool } from './tool-list.js';
import { checkServerUrl } from './url-check.js';

/** Default time limit for connecting to a server and listing its tools. */
export const DEFAULT_START_TIMEOUT_MS = 30_000;
/** Default time limit for one tool call. */
export const DEFAULT_CALL_TIMEOUT_MS = 120_000;
const STDERR_TAIL = 4_096;

export type ConnectionState = 'idle' | 'starting' | 'ready' | 'failed' | 'closed';

export interface ConnectionOptions {
  cwd: string;
  clientName: string;
  clientVersion: string;
  wrapCommand?: McpCommandWrapper;
  authProvider?: OAuthClientProvider;
  onToolsChanged: () => void;
  answerElicitation?: McpElicitationHandler;
  answerSampling?: McpSamplingHandler;
  /** Replaces the server's configured secret values in what it prints. */
  redactor: Redactor;
}

/** One configured server: its process or HTTP session, its client, its listed tools. */
export class ServerConnection {
  state: ConnectionState = 'idle';
  tools: Tool[] = [];
  /** Tools left out of the last list because their entry is malformed. */
  skippedTools: SkippedTool[] = [];
  lastError: Error | undefined;
  restarts = 0;
  transportKind: 'stdio' | 'streamable-http' | 'sse' | undefined;
  private client: Client | undefined;
  private starting: Promise<Client> | undefined;
  private stderrTail = '';
  private stderrRedactor: StreamRedactor;
  private closing = false;
  private refreshing: Promise<void> | undefined;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly options: ConnectionOptions,
  ) {
    this.stderrRedactor = new StreamRedactor(options.redactor);
  }

  /** The last lines the server wrote to stderr, secrets redacted (diagnostics only; never logged). */
  get stderr(): string {
    return (this.stderrTail + this.stderrRedactor.peek()).slice(-STDERR_TAIL);
  }

  get capabilities(): ReturnType<Client['getServerCapabilities']> {
    return this.client?.getServerCapabilities();
  }

  get instructions(): string | undefined {
    return this.client?.getInstructions();
  }

  /** Connects (once; concurrent callers share the attempt) and lists the tools. */
  ensureStarted(): Promise<Client> {
    if (this.client && this.state === 'ready') return Promise.resolve(this.client);
    if (this.state === 'closed')
      return Promise.reject(
        new McpServerUnavailableError({
          server: this.name,
          reason: 'closed',
          detail: 'the session closed its MCP servers',
        }),
      );
    // A server that failed (crashed, or never started) gets one more start per session.
    if (this.state === 'failed' && !this.starting) {
      if (this.restarts >= 1)
        return Promise.reject(
          this.lastError ??
            new McpServerUnavailableError({
              server: this.name,
              reason: 'crashed',
              detail: 'it already failed twice',
            }),
        );
      this.restarts += 1;
    }
    if (!this.starting) {
      this.state = 'starting';
      this.starting = this.start().then(
        async (client) => {
          this.starting = undefined;
          if (this.state === 'closed') {
            await client.close().catch(() => undefined);
            throw new McpServerUnavailableError({
              server: this.name,
              reason: 'closed',
              detail: 'the session closed its MCP servers while it started',
            });
          }
          this.state = 'ready';
          this.lastError = undefined;
          return client;
        },
        (error: unknown) => {
          this.starting = undefined;
          this.state = 'failed';
          this.lastError = error instanceof Error ? error : new Error(String(error));
          throw error;
        },
      );
    }
    return this.starting;
  }

  private async start(): Promise<Client> {
    const limit = this.config.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    let attempt: Client | undefined;
    let timedOut = false;
    const run = async (): Promise<Client> => {
      let lastError: unknown;
      for (const [kind, make] of this.transports()) {
        // A second round only after an OAuth authorization finished (the first got a 401).
        for (let round = 0; round < 2; round++) {
          // After the start timeout nothing more is tried (no process is left behind).
          if (timedOut) throw lastError;
          const client = this.newClient();
          attempt = client;
          const transport = make();
          try {
            await client.connect(transport);
            if (timedOut) {
              await client.close().catch(() => undefined);
              throw new Error('connected after the start timeout');
            }
            this.transportKind = kind;
            this.client = client;
            this.setTools(await listTools(client));
            client.onclose = () => this.onClosed(client);
            return client;
          } catch (error) {
            lastError = error;
            await client.close().catch(() => undefined);
            if (
              round > 0 ||
              !(await finishAuthorization(this.options.authProvider, error, transport))
            )
              break;
          }
        }
        // An authorization failure is not a reason to try the legacy transport.
        if (lastError instanceof UnauthorizedError) break;
      }
      throw lastError;
    };
    try {
      return await wait(
        run(),
        limit,
        () =>
          new McpServerUnavailableError({
            server: this.name,
            reason: 'start-timeout',
            detail: `no answer to initialize and tools/list within ${limit} ms`,
          }),
      );
    } catch (error) {
      timedOut = true;
      await attempt?.close().catch(() => undefined);
      this.client = undefined;
      if (error instanceof McpServerUnavailableError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      const tail = this.stderr.trim().split('\n').slice(-3).join(' | ');
      throw new McpServerUnavailableError({
        server: this.name,
        reason: 'start-failed',
        detail: tail ? `${message} (stderr: ${tail})` : message,
        cause: error,
      });
    }
  }

  private transports(): Array<['stdio' | 'streamable-http' | 'sse', () => Transport]> {
    const config = this.config;
    if (isStdioServer(config)) {
      return [
        [
          'stdio',
          () =>
            createStdioTransport(this.name, config, {
              cwd: this.options.cwd,
              wrapCommand: this.options.wrapCommand,
              onStderr: (text) => {
                const shown = this.stderrRedactor.push(text);
                this.stderrTail = (this.stderrTail + shown).slice(-STDERR_TAIL);
              },
            }),
        ],
      ];
    }
    const url = checkServerUrl(this.name, config.url);
    const requestInit: RequestInit = config.headers ? { headers: config.headers } : {};
    const authProvider = this.options.authProvider;
    const sse: ['sse', () => Transport] = [
      'sse',
      () => new SSEClientTransport(url, { requestInit, ...(authProvider ? { authProvider } : {}) }),
    ];
    if (config.type === 'sse') return [sse];
    return [
      [
        'streamable-http',
        () =>
          new StreamableHTTPClientTransport(url, {
            requestInit,
            ...(authProvider ? { authProvider } : {}),
          }),
      ],
      sse,
    ];
  }

  private newClient(): Client {
    const elicitation = this.config.elicitation === true;
    const sampling = this.config.sampling === true;
    const client = new Client(
      { name: this.options.clientName, version: this.options.clientVersion },
      {
        capabilities: {
          ...(elicitation ? { elicitation: {} } : {}),
          ...(sampling ? { sampling: {} } : {}),
        },
      },
    );
    // Handled in order with the responses: a call that made the server change its tools returns
    // only after the new list is in (see callTool), so the next step sees it.
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.refreshing = this.refreshTools().finally(() => {
        this.refreshing = undefined;
      });
    });
    // Capabilities are offered only when enabled; without an answering front end the requests
    // are still refused, with a clear error.
    const { answerElicitation, answerSampling } = this.options;
    if (elicitation)
      client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
        if (!answerElicitation) throw refusal('elicitation');
        // The question is shown to the person: the entry's secret values are not.
        const params = redactDeep(request.params, this.options.redactor);
        return answerElicitation({ server: this.name, params, signal: extra.signal });
      });
    if (sampling)
      client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => {
        if (!answerSampling) throw refusal('sampling');
        // The request goes to the model and into the log: the entry's secret values do not.
        const params = redactDeep(request.params, this.options.redactor);
        return answerSampling({ server: this.name, params, signal: extra.signal });
      });
    return client;
  }

  private setTools(list: { tools: Tool[]; skipped: SkippedTool[] }): void {
    this.tools = list.tools;
    this.skippedTools = list.skipped;
  }

  private async refreshTools(): Promise<void> {
    // A server may announce a change while it starts (server-everything does): list again after.
    if (this.state === 'starting') await this.starting?.catch(() => undefined);
    const client = this.client;
    if (!client || this.state !== 'ready') return;
    try {
      this.setTools(await listTools(client));
      this.options.onToolsChanged();
    } catch (error) {
      this.lastError = error instanceof Error ? error : new Error(String(error));
    }
  }

  private onClosed(client: Client): void {
    if (client !== this.client) return;
    this.client = undefined;
    if (this.closing) return;
    this.state = 'failed';
    this.lastError = new McpServerUnavailableError({
      server: this.name,
      reason: 'crashed',
      detail: 'the connection closed unexpectedly',
    });
  }

  /** Calls a tool; a crash restarts the server once (the caller decides whether to retry). */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: {
      signal: AbortSignal;
      timeoutMs?: number;
      onProgress?: (progress: number, total?: number, message?: string) => void;
    },
  ): Promise<CallToolResult> {
    const client = await this.ensureStarted();
    const timeout = options.timeoutMs ?? this.config.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const onProgress = options.onProgress;
    const result = await client.callTool({ name: tool, arguments: args }, undefined, {
      signal: options.signal,
      timeout,
      ...(onProgress
        ? {
            onprogress: (progress: { progress: number; total?: number; message?: string }) =>
              onProgress(progress.progress, progress.total, progress.message),
            resetTimeoutOnProgress: false,
          }
        : {}),
    });
    if (this.refreshing) await this.refreshing;
    return result as CallToolResult;
  }

  /** Restarts a crashed server once per session; false when the restart was already used. */
  async restartOnce(): Promise<boolean> {
    if (this.restarts >= 1 || this.state !== 'failed') return false;
    try {
      await this.ensureStarted();
      this.options.onToolsChanged();
      return true;
    } catch {
      return false;
    }
  }

  async listResources(): Promise<Resource[]> {
    const client = await this.ensureStarted();
    return allPages(async (cursor) => {
      const result = await client.listResources(cursor === undefined ? {} : { cursor });
      return { items: result.resources, nextCursor: result.nextCursor };
    });
  }

  async readResource(uri: string, signal?: AbortSignal): Promise<unknown> {
    const client = await this.ensureStarted();
    return client.readResource({ uri }, signal ? { signal } : {});
  }

  async listPrompts(): Promise<Prompt[]> {
    const client = await this.ensureStarted();
    return allPages(async (cursor) => {
      const result = await client.listPrompts(cursor === undefined ? {} : { cursor });
      return { items: result.prompts, nextCursor: result.nextCursor };
    });
  }

  async getPrompt(name: string, args: Record<string, string>): Promise<unknown> {
    const client = await this.ensureStarted();
    return client.getPrompt({ name, arguments: args });
  }

  async close(): Promise<void> {
    this.closing = true;
    this.state = 'closed';
    await this.starting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }
}
