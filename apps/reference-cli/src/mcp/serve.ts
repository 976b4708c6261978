// `spine mcp serve`: Spine's tools as an MCP server (stdio, or Streamable HTTP on loopback).
// The session is the harness's, with a model that is never called; every call is recorded in it.
import type { AgentSession } from '@spine/harness';
import type { ModelClient, ToolRunEvent, ToolScheduler } from '@spine/protocol';
import { visibleText } from '@spine/protocol';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';
import { chooseTools, HARNESS_TOOL_HINTS, toolDefinitions } from './serve-tools.js';

/** Flags of `spine mcp serve`. */
export interface McpServeFlags extends AgentFlags {
  /** Comma-separated tool names (default: every servable tool). */
  tools?: string;
  /** Serve Streamable HTTP on loopback instead of stdio. */
  http?: boolean;
  /** Port of `--http` (default: a free one). */
  port?: string;
  /** Loopback address of `--http`: 127.0.0.1 (default) or ::1. */
  host?: string;
}

/** The model of a serving session: the server runs tools only, so a call is a bug. */
const NO_MODEL: ModelClient = {
  specificationVersion: 1,
  provider: 'none',
  stream() {
    throw new Error('spine mcp serve runs tools only; it never calls a model');
  },
};

const say = (text: string): void => {
  process.stderr.write(`${visibleText(text)}\n`);
};

/** Appends what the runtime reports about each call to the session, as the agent loop does. */
function recorder(session: AgentSession['session']): (event: ToolRunEvent) => void {
  return (event) => {
    if (event.type === 'approval') session.append('tool/approval', event.body);
    else if (event.type === 'started') {
      const { toolCallId, toolName, arguments: args } = event;
      session.append('tool/started', { toolCallId, toolName, arguments: args });
    } else if (event.type === 'result') {
      session.append('tool/result', event.body);
      // Durable per call, as the agent loop is per turn.
      void session.flush().catch(() => {});
    }
  };
}

/** Serves until the client goes away (stdio) or a signal arrives; resolves with why it stopped. */
async function serve(
  started: AgentSession,
  flags: McpServeFlags,
  where: { cwd: string; port: number | undefined },
): Promise<string> {
  const { cwd, port } = where;
  const mcp = await import('@spine/mcp');
  const { session, runtime, config } = started;
  const expose = await chooseTools(runtime.specs(), flags.tools);
  const tools = await toolDefinitions(config, cwd);
  const record = recorder(session);
  // Calls still running when the server stops are aborted by the SDK; their results are awaited
  // before the session closes, so no call is left without one.
  const running = new Set<Promise<unknown>>();
  const scheduler: ToolScheduler = {
    specificationVersion: 1,
    specs: (agent) => runtime.specs(agent),
    run(calls, options) {
      const run = runtime.run(calls, options);
      running.add(run);
      void run.finally(() => running.delete(run)).catch(() => {});
      return run;
    },
  };
  let calls = 0;
  const createServer = () =>
    mcp.createMcpToolServer({
      scheduler,
      expose,
      tools,
      annotations: {
        ...HARNESS_TOOL_HINTS,
        bash: { openWorldHint: config.shell.network !== 'off' },
      },
      onEvent: record,
      callId: () => `mcp_${++calls}`,
      serverInfo: { name: 'spine', version: mcp.VERSION },
      instructions: `Spine's tools on the workspace ${cwd}: paths are relative to it, commands run in Spine's sandbox (${runtime.sandbox}), and the ${config.approval} approval policy applies. Every call is recorded in Spine session ${session.id}.`,
    });
  let stop: (reason: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => {
    stop = resolve;
  });
  process.once('SIGINT', () => stop('interrupted'));
  process.once('SIGTERM', () => stop('terminated'));
  let close: () => Promise<void>;
  if (flags.http) {
    const http = await mcp.startMcpHttpServer({
      createServer,
      ...(flags.host ? { host: flags.host } : {}),
      ...(port !== undefined ? { port } : {}),
    });
    // One JSON line on stdout for programs; the same in words on stderr for people.
    process.stdout.write(
      `${JSON.stringify({ url: http.url, token: http.token, session: session.id })}\n`,
    );
    say(`spine mcp serve: ${http.url} (Authorization: Bearer <token>), session ${session.id}`);
    close = () => http.close();
  } else {
    const stdio = await mcp.startMcpStdioServer({ server: createServer() });
    void stdio.closed.then(() => stop('client closed'));
    say(`spine mcp serve: serving ${expose.join(', ')} on stdio, session ${session.id}`);
    close = () => stdio.close();
  }
  const reason = await stopped;
  await close().catch(() => {});
  await Promise.allSettled([...running]);
  return reason;
}

/** `spine mcp serve [--tools a,b] [--http [--port n] [--host 127.0.0.1|::1]]`. */
export async function mcpServeCommand(flags: McpServeFlags): Promise<number> {
  const { loaded, cwd } = configForFlags(flags);
  // Configured MCP servers are not started: `spine mcp serve` may itself be one of them.
  const config = { ...loaded.config, mcp: { ...loaded.config.mcp, servers: {} } };
  const [{ fixedModel, startAgentSession, UsageError }, { McpServeAddressError }] =
    await Promise.all([import('@spine/harness'), import('@spine/mcp')]);
  const port = flags.port === undefined ? undefined : Number(flags.port);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536))
    throw new UsageError({
      message: `--port expects a port number, got ${JSON.stringify(flags.port)}`,
    });
  if (flags.host !== undefined && !['127.0.0.1', '::1'].includes(flags.host))
    throw new McpServeAddressError({ host: flags.host });
  const started = await startAgentSession({
    config,
    cwd,
    model: fixedModel(NO_MODEL, 'mcp-serve'),
    title: 'spine mcp serve',
    onWarning: (message) => say(`spine mcp serve: ${message}`),
  });
  let reason = 'failed';
  try {
    reason = await serve(started, flags, { cwd, port });
  } finally {
    await started.finish(reason);
  }
  return EXIT_CODES.ok;
}
