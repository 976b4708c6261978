import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { type AnyToolDefinition, visibleText } from '@spine/protocol';
import type { McpCommandWrapper } from './command.js';
import {
  describeServer,
  expandServerConfig,
  isStdioServer,
  type McpServerConfig,
  type McpServersConfig,
} from './config.js';
import { McpServerUnavailableError } from './errors.js';
import { Redactor, secretValues } from './internal/redact.js';
import { ServerConnection } from './internal/server-connection.js';
import { buildServerTools } from './internal/tool-definitions.js';
import { assignToolNames, toolKey } from './names.js';
import type { McpOAuthProvider } from './oauth-file.js';
import type { McpElicitationHandler, McpSamplingHandler } from './requests.js';

/** The SDK's view of a provider: {@link McpOAuthProvider} documents that it implements it. */
const sdkAuthProvider = (provider: McpOAuthProvider): OAuthClientProvider =>
  provider as unknown as OAuthClientProvider;

/**
 * A problem found while turning servers into tools: a server that failed, a tool skipped. Its
 * text is safe to print: configured secret values are `[redacted]` and control characters are
 * made visible (`visibleText` of `@spine/protocol`).
 */
export interface McpDiagnostic {
  /** The server concerned. */
  server: string;
  /** The server's own tool name, when one tool is concerned. */
  tool?: string;
  /** What happened. */
  message: string;
}

/**
 * The state of one configured server, for `/mcp`, `spine mcp list` and `spine doctor`. Every
 * server-chosen string in it (tool names, error) is safe to print, as in {@link McpDiagnostic}.
 */
export interface McpServerStatus {
  /** The configured name. */
  name: string;
  /** `idle` (not started), `starting`, `ready`, `failed`, `closed` or `disabled`. */
  state: 'idle' | 'starting' | 'ready' | 'failed' | 'closed' | 'disabled';
  /** `stdio`, `streamable-http` or `sse`, once connected. */
  transport?: string;
  /** The server's own tool names, once listed. */
  tools: string[];
  /** Why the server failed, if it did. */
  error?: string;
  /** A description of the entry with secret values hidden. */
  description: string;
  /** True for a stdio server started through the command wrapper (the sandbox). */
  sandboxed: boolean;
}

/** Options of {@link createMcpManager}. */
export interface McpManagerOptions {
  /** The configured servers (unexpanded; `${ENV}` is expanded at start). */
  servers: McpServersConfig;
  /** The workspace: the working directory of stdio servers without their own `cwd`. */
  cwd: string;
  /** Variables for `${ENV}` expansion. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Wraps stdio commands (the sandbox); without it servers run unconfined. */
  wrapCommand?: McpCommandWrapper;
  /** OAuth client provider per remote server (tokens stored by the application). */
  authProvider?: (server: string) => McpOAuthProvider | undefined;
  /** Names already taken by other tools; MCP tool names avoid them. */
  reservedNames?: Iterable<string>;
  /** The client name sent in `initialize`. Default `spine`. */
  clientName?: string;
  /** The client version sent in `initialize`. */
  clientVersion?: string;
  /** Answers elicitation requests of servers that enable them; without it they are refused. */
  answerElicitation?: McpElicitationHandler;
  /** Answers sampling requests of servers that enable them; without it they are refused. */
  answerSampling?: McpSamplingHandler;
}

/**
 * Turns configured MCP servers into Spine tools and keeps them current. Servers connect lazily
 * (the first {@link McpManager.tools} call) unless `startup: "eager"` (then {@link McpManager.start}).
 *
 * Contract: starting a server never throws to the caller of `tools()`; a failed server or a
 * skipped tool becomes a diagnostic. Tool failures become error results, never exceptions.
 */
export interface McpManager {
  /** Starts the `eager` servers (every enabled server with `all`), in parallel; never throws. */
  start(options?: { all?: boolean }): Promise<McpServerStatus[]>;
  /** Starts what is not started yet and returns the current tool definitions. */
  tools(): Promise<AnyToolDefinition[]>;
  /** The current tool definitions, without starting anything. */
  definitions(): AnyToolDefinition[];
  /** Servers whose tool list changed since the last call (for the next step boundary), and clears them. */
  takeChanges(): string[];
  /** Calls `listener` with the server's name when its tool list changes; returns an unsubscribe. */
  onToolsChanged(listener: (server: string) => void): () => void;
  /** Every configured server's state. */
  status(): McpServerStatus[];
  /** Problems found so far (failed servers, skipped tools), oldest first. */
  diagnostics(): McpDiagnostic[];
  /** The instructions a connected server sent in `initialize` (for the system prompt), if any. */
  instructions(server: string): string | undefined;
  /** The connection of one server, started if needed (resources and prompts). */
  server(name: string): Promise<McpServerHandle>;
  /** Stops every server; later calls fail. */
  close(): Promise<void>;
}

/** Resources and prompts of one connected server. */
export interface McpServerHandle {
  /** The server's configured name. */
  readonly name: string;
  /** The server's resources (`resources/list`, all pages). */
  listResources(): Promise<{ uri: string; name: string; mimeType?: string }[]>;
  /** The server's prompts (`prompts/list`, all pages). */
  listPrompts(): Promise<
    { name: string; description?: string; arguments?: { name: string; required?: boolean }[] }[]
  >;
  /** Gets one prompt's messages, rendered as text (`prompts/get`). */
  getPrompt(name: string, args?: Record<string, string>): Promise<string>;
  /** The instructions the server sent in `initialize`, if any. */
  readonly instructions: string | undefined;
}

function textOfPromptMessages(result: unknown): string {
  const messages = (result as { messages?: unknown }).messages;
  if (!Array.isArray(messages)) return '';
  const parts: string[] = [];
  for (const message of messages) {
    const content = (
      message as {
        content?: { type?: string; text?: string; resource?: { uri?: string; text?: string } };
      }
    ).content;
    if (content?.type === 'text' && typeof content.text === 'string') parts.push(content.text);
    else if (content?.type === 'resource' && typeof content.resource?.text === 'string')
      parts.push(content.resource.text);
    else if (content?.type) parts.push(`[${content.type} content not shown]`);
  }
  return parts.join('\n\n');
}

/**
 * Creates the manager of a session's MCP servers.
 *
 * @throws an {@link McpConfigError} when an enabled entry refers to an unset `${ENV}` variable.
 * @example
 * ```ts
 * const mcp = createMcpManager({ servers: parseMcpConfig(json), cwd: process.cwd() });
 * for (const tool of await mcp.tools()) runtime.register(tool);
 * await mcp.close();
 * ```
 */
export function createMcpManager(options: McpManagerOptions): McpManager {
  const reserved = [...(options.reservedNames ?? [])];
  const connections = new Map<string, ServerConnection>();
  const configured = new Map<string, McpServerConfig>();
  const found: McpDiagnostic[] = [];
  const seen = new Set<string>();
  const changed = new Set<string>();
  const listeners = new Set<(server: string) => void>();
  let definitions: AnyToolDefinition[] = [];
  let closed = false;

  const redactors = new Map<string, Redactor>();
  const safe = (server: string, text: string): string =>
    visibleText(redactors.get(server)?.redact(text) ?? text);
  const report = (raw: McpDiagnostic): void => {
    const diagnostic: McpDiagnostic = {
      server: raw.server,
      message: safe(raw.server, raw.message),
      ...(raw.tool === undefined ? {} : { tool: safe(raw.server, raw.tool) }),
    };
    const key = `${diagnostic.server}\u0000${diagnostic.tool ?? ''}\u0000${diagnostic.message}`;
    if (seen.has(key)) return;
    seen.add(key);
    found.push(diagnostic);
  };

  for (const [name, config] of Object.entries(options.servers)) {
    configured.set(name, config);
    if (config.enabled === false) continue;
    const env = options.env ?? process.env;
    const expanded = expandServerConfig(name, config, env);
    const redactor = new Redactor(secretValues(config, expanded, env));
    redactors.set(name, redactor);
    const provided = options.authProvider?.(name);
    const authProvider = provided ? sdkAuthProvider(provided) : undefined;
    connections.set(
      name,
      new ServerConnection(name, expanded, {
        cwd: options.cwd,
        clientName: options.clientName ?? 'spine',
        clientVersion: options.clientVersion ?? '0.1.0',
        redactor,
        ...(options.wrapCommand ? { wrapCommand: options.wrapCommand } : {}),
        ...(authProvider ? { authProvider } : {}),
        ...(options.answerElicitation ? { answerElicitation: options.answerElicitation } : {}),
        ...(options.answerSampling ? { answerSampling: options.answerSampling } : {}),
        onToolsChanged: () => {
          rebuild();
          changed.add(name);
          for (const listener of listeners) listener(name);
        },
      }),
    );
  }

  function rebuild(): void {
    const ready = [...connections.values()].filter((connection) => connection.state === 'ready');
    const pairs: { server: string; tool: string }[] = [];
    for (const connection of ready)
      for (const tool of connection.tools) pairs.push({ server: connection.name, tool: tool.name });
    for (const connection of ready)
      if (connection.capabilities?.resources)
        pairs.push({ server: connection.name, tool: 'read_resource' });
    const names = assignToolNames(pairs, reserved);
    const out: AnyToolDefinition[] = [];
    for (const connection of ready) {
      for (const skipped of connection.skippedTools)
        report({ server: connection.name, tool: skipped.tool, message: skipped.message });
      out.push(
        ...buildServerTools(connection, {
          nameOf: (tool) => names.get(toolKey(connection.name, tool)) ?? tool,
          report,
          redactor: redactors.get(connection.name) ?? new Redactor([]),
        }),
      );
    }
    definitions = out;
  }

  async function startAll(which: (config: McpServerConfig) => boolean): Promise<void> {
    await Promise.all(
      [...connections.values()]
        .filter((connection) => connection.state === 'idle' && which(connection.config))
        .map((connection) =>
          connection.ensureStarted().catch((error: unknown) => {
            report({
              server: connection.name,
              message: error instanceof Error ? error.message : String(error),
            });
          }),
        ),
    );
    rebuild();
  }

  function status(): McpServerStatus[] {
    const out: McpServerStatus[] = [];
    for (const [name, config] of configured) {
      const connection = connections.get(name);
      const sandboxed =
        isStdioServer(config) &&
        (config.sandbox ?? 'workspace-write') !== 'danger-full-access' &&
        options.wrapCommand !== undefined;
      const entry: McpServerStatus = {
        name,
        state: connection ? connection.state : 'disabled',
        tools:
          connection?.state === 'ready'
            ? connection.tools.map((tool) => safe(name, tool.name))
            : [],
        description: describeServer(config),
        sandboxed,
      };
      if (connection?.transportKind) entry.transport = connection.transportKind;
      if (connection?.state === 'failed' && connection.lastError)
        entry.error = safe(name, connection.lastError.message);
      out.push(entry);
    }
    return out;
  }

  return {
    async start(startOptions = {}) {
      await startAll((config) => startOptions.all === true || config.startup === 'eager');
      return status();
    },
    async tools() {
      if (!closed) await startAll(() => true);
      return definitions;
    },
    definitions: () => definitions,
    takeChanges() {
      const out = [...changed];
      changed.clear();
      return out;
    },
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    status,
    diagnostics: () => [...found],
    instructions: (server) => {
      const connection = connections.get(server);
      const text = connection?.state === 'ready' ? connection.instructions : undefined;
      return text === undefined ? undefined : (redactors.get(server)?.redact(text) ?? text);
    },
    async server(name) {
      const connection = connections.get(name);
      if (!connection) {
        throw new McpServerUnavailableError({
          server: name,
          reason: configured.has(name) ? 'disabled' : 'unknown',
          detail: configured.has(name)
            ? 'the server is disabled'
            : 'no server of that name is configured',
        });
      }
      await connection.ensureStarted();
      return {
        name,
        get instructions() {
          return connection.instructions;
        },
        listResources: () => connection.listResources(),
        listPrompts: () => connection.listPrompts(),
        getPrompt: async (prompt, args = {}) => {
          const text = textOfPromptMessages(await connection.getPrompt(prompt, args));
          return redactors.get(name)?.redact(text) ?? text;
        },
      };
    },
    async close() {
      closed = true;
      await Promise.all([...connections.values()].map((connection) => connection.close()));
      definitions = [];
    },
  };
}
