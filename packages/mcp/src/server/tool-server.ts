import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ElicitResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type {
  AnyToolDefinition,
  ToolResultBody,
  ToolRunEvent,
  ToolRunOptions,
  ToolScheduler,
  ToolSpec,
} from '@spine/protocol';
import { z } from 'zod';
import { annotationsFor, type ServedToolAnnotations } from './annotations.js';
import { type ElicitationSender, elicitationApprover } from './approval-elicitation.js';

/** Options of {@link createMcpToolServer}. */
export interface McpToolServerOptions {
  /**
   * Runs every call: argument validation against the tool's schema, hooks, the approval policy,
   * the sandbox and the path guard, exactly as inside Spine (`@spine/tool-runtime`'s runtime).
   */
  scheduler: ToolScheduler;
  /** The tools to serve, by name, in this order (default: every tool the scheduler has). */
  expose?: readonly string[];
  /** The definitions of the served tools, whose permissions give the annotations. */
  tools?: readonly AnyToolDefinition[];
  /** Hints that replace the derived ones for a tool, by name (e.g. `bash` with network on). */
  annotations?: { readonly [name: string]: Partial<ServedToolAnnotations> };
  /** Receives every approval, start and result of every call, in order: record them here. */
  onEvent?: (event: ToolRunEvent) => void;
  /** The id of the next call (default: `mcp_` and a random UUID). */
  callId?: () => string;
  /** How long a person may take to answer an elicitation, in ms. Default 10 minutes. */
  elicitationTimeoutMs?: number;
  /** Name and version the server reports in `initialize`. Default `spine` and `0.1.0`. */
  serverInfo?: { name: string; version: string };
  /** Instructions for the client's model, sent in `initialize`. */
  instructions?: string;
}

const DEFAULT_ELICITATION_TIMEOUT_MS = 600_000;

/**
 * `tools/call` matched by method only (any params, even none): the handler checks the parameters
 * itself and answers a malformed call with "Invalid params" (-32602) in one readable sentence,
 * where a strict schema would answer with an internal error (-32603) or a zod dump.
 */
const CallToolByMethodSchema = z.looseObject({ method: z.literal('tools/call') });

/** A zod error as one sentence: `params.name: expected string, received undefined; …`. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.') || 'request';
      return `${path}: ${issue.message.replace(/^Invalid input: /, '')}`;
    })
    .join('; ');
}

/** The specs served, in the order asked for; a name the scheduler does not have is refused. */
function servedSpecs(scheduler: ToolScheduler, expose: readonly string[] | undefined): ToolSpec[] {
  const all = scheduler.specs();
  if (!expose) return all;
  const byName = new Map(all.map((spec) => [spec.name, spec]));
  return expose.map((name) => {
    const spec = byName.get(name);
    if (!spec)
      throw new TypeError(
        `cannot serve tool ${JSON.stringify(name)}: the tool runtime has ${all.map((s) => s.name).join(', ')}`,
      );
    return spec;
  });
}

/** The MCP content of a Spine tool result: its text exactly as a model inside Spine sees it. */
function toCallToolResult(body: ToolResultBody): CallToolResult {
  return { content: [{ type: 'text', text: body.content }], isError: body.isError };
}

/**
 * The MCP server {@link createMcpToolServer} makes (the official SDK's `Server`), typed by what
 * callers use, so the SDK's declarations (which need the DOM library) stay out of the public types.
 */
export interface McpToolServer {
  /** Connects a transport of the SDK (stdio, Streamable HTTP, in-memory) and starts serving. */
  connect(transport: object): Promise<void>;
  /** Closes the server and its transport. */
  close(): Promise<void>;
  /** Called once the server is closed. */
  onclose?: (() => void) | undefined;
}

/**
 * Creates an MCP server (the official SDK's `Server`) serving Spine's tools: `tools/list` gives each
 * tool's own input schema and honest annotations, `tools/call` runs the call through the injected
 * scheduler, so validation errors, approval decisions, sandbox and path-guard refusals read as
 * they do inside Spine. Where the policy asks a person, the server asks through elicitation when
 * the client declared it; otherwise the call is denied by the policy, never run silently.
 * Cancelling a request aborts its call (a command's process group is killed); output of a running
 * command is sent as progress notifications when the client asked for progress. Connect the
 * returned server to a transport (stdio, Streamable HTTP); one server serves one client.
 *
 * @throws a {@link TypeError} when `expose` names a tool the scheduler does not have.
 * @example
 * ```ts
 * const server = createMcpToolServer({ scheduler: runtime, expose: ['read', 'grep'] });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMcpToolServer(options: McpToolServerOptions): McpToolServer {
  const specs = servedSpecs(options.scheduler, options.expose);
  const served = new Set(specs.map((spec) => spec.name));
  const definitions = new Map((options.tools ?? []).map((tool) => [tool.spec.name, tool]));
  const listed: Tool[] = specs.map((spec) => ({
    name: spec.name,
    description: spec.description,
    inputSchema: spec.parameters as Tool['inputSchema'],
    annotations: {
      ...annotationsFor(definitions.get(spec.name)),
      ...options.annotations?.[spec.name],
    },
  }));
  const nextId = options.callId ?? (() => `mcp_${randomUUID()}`);
  const server = new Server(options.serverInfo ?? { name: 'spine', version: '0.1.0' }, {
    capabilities: { tools: { listChanged: false } },
    ...(options.instructions ? { instructions: options.instructions } : {}),
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  // Registered past `Server`'s own tools/call wrapper, which answers bad params with a zod dump;
  // this handler checks them itself, and its results are always well-formed.
  Protocol.prototype.setRequestHandler.call(
    server,
    CallToolByMethodSchema,
    async (loose, extra) => {
      const parsed = CallToolRequestSchema.safeParse(loose);
      if (!parsed.success)
        throw new McpError(
          ErrorCode.InvalidParams,
          `Invalid tools/call request: ${describeIssues(parsed.error)}. Send params { name, arguments }.`,
        );
      const request = parsed.data;
      const name = request.params.name;
      const toolCallId = nextId();
      if (!served.has(name)) {
        // Recorded like the runtime's own answer to a tool it does not have, and answered with the
        // protocol error (-32602) the MCP specification asks for an unknown tool.
        const content = `Unknown tool \`${name}\`. Available tools: ${[...served].join(', ') || '(none)'}.`;
        options.onEvent?.({
          type: 'result',
          body: { toolCallId, toolName: name, content, isError: true, outcome: 'not-found' },
        });
        throw new McpError(ErrorCode.InvalidParams, content);
      }
      const capabilities = server.getClientCapabilities()?.elicitation;
      const canElicit =
        capabilities !== undefined &&
        (capabilities.form !== undefined || capabilities.url === undefined);
      const send: ElicitationSender = (params, sendOptions) =>
        extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, {
          timeout: options.elicitationTimeoutMs ?? DEFAULT_ELICITATION_TIMEOUT_MS,
          ...(sendOptions.signal ? { signal: sendOptions.signal } : {}),
        }) as ReturnType<ElicitationSender>;
      const progressToken = extra._meta?.progressToken;
      let progress = 0;
      const run: ToolRunOptions = {
        signal: extra.signal,
        onEvent: (event) => {
          if (event.type === 'progress') {
            if (progressToken === undefined || event.toolCallId !== toolCallId) return;
            progress += 1;
            void extra
              .sendNotification({
                method: 'notifications/progress',
                params: {
                  progressToken,
                  progress,
                  ...(event.message !== undefined ? { message: event.message } : {}),
                },
              })
              .catch(() => {});
            return;
          }
          options.onEvent?.(event);
        },
        // Without elicitation nobody can be asked: the runtime denies by the policy, saying so.
        ...(canElicit ? { approve: elicitationApprover(send) } : {}),
      };
      let encoded: string;
      try {
        encoded = JSON.stringify(request.params.arguments ?? {});
      } catch (error) {
        // Thousands of levels overflow JSON.stringify's stack: refused (and recorded) like the
        // runtime refuses arguments nesting too deeply, before anything runs.
        const body: ToolResultBody = {
          toolCallId,
          toolName: name,
          content: `Invalid arguments for tool \`${name}\`: they cannot be encoded (${error instanceof Error ? error.message : String(error)}); objects and arrays nest far too deeply. Send flatter arguments matching the tool's parameters.`,
          isError: true,
          outcome: 'invalid',
        };
        options.onEvent?.({ type: 'result', body });
        return toCallToolResult(body);
      }
      const [body] = await options.scheduler.run(
        [{ type: 'tool-call', id: toolCallId, name, arguments: encoded }],
        run,
      );
      if (!body) throw new Error(`the tool runtime returned no result for ${toolCallId}`);
      return toCallToolResult(body);
    },
  );
  return server;
}
