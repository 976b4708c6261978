import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  type AnyToolDefinition,
  IMAGE_SERVICE,
  type ImageService,
  type JsonSchema,
  type ToolDefinition,
  type ToolExecutionContext,
  type ToolOutput,
} from '@spine/protocol';
import { McpServerUnavailableError } from '../errors.js';
import { toolPolicy } from '../policy.js';
import { renderToolResult } from '../render.js';
import { coalesce } from './progress.js';
import type { Redactor } from './redact.js';
import { schemaProblem } from './schema-check.js';
import { DEFAULT_CALL_TIMEOUT_MS, type ServerConnection } from './server-connection.js';
import { cutAtCodePoint } from './text-cut.js';

/** The session's image service, when the model accepts images (MCP images then pass through). */
function imagesOf(context: ToolExecutionContext): { images?: ImageService } {
  const images = context.services?.[IMAGE_SERVICE] as ImageService | undefined;
  // Asked at each call: the session's model may have been switched since the tools were made.
  return images && images.accepts?.() !== false ? { images } : {};
}

const MAX_DESCRIPTION = 4_000;
// The SDK's own timeout sits behind the runtime's, so the runtime's abort (a `timeout` outcome
// and `notifications/cancelled`) normally wins.
const SDK_TIMEOUT_MARGIN_MS = 5_000;

function errorOutput(
  content: string,
  server: string,
  tool: string,
  extra: Record<string, string> = {},
): ToolOutput {
  return { content, isError: true, meta: { provider: 'mcp', server, tool, ...extra } };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A tool's output with the server's configured secret values redacted. */
function redacted(output: ToolOutput, redactor: Redactor): ToolOutput {
  const content = redactor.redact(output.content);
  return content === output.content ? output : { ...output, content };
}

/** The call's progress reports, coalesced (a burst, then at most one per interval) and redacted. */
function progressReporter(
  onProgress: NonNullable<ToolExecutionContext['onProgress']>,
  redactor: Redactor,
) {
  return coalesce<{ progress: number; total?: number; message?: string }>(
    ({ progress, total, message }) =>
      onProgress({
        message: redactor.redact(
          `${message ? `${message} ` : ''}${progress}${total === undefined ? '' : `/${total}`}`,
        ),
        data: total === undefined ? { progress } : { progress, total },
      }),
  );
}

async function call(
  connection: ServerConnection,
  tool: string,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  readOnly: boolean,
  redactor: Redactor,
): Promise<ToolOutput> {
  const reporter = context.onProgress ? progressReporter(context.onProgress, redactor) : undefined;
  try {
    return redacted(
      await callOnce(connection, tool, args, context, { readOnly, reporter, redactor }),
      redactor,
    );
  } finally {
    // The last progress held back is shown before the result.
    reporter?.flush();
  }
}

async function callOnce(
  connection: ServerConnection,
  tool: string,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  how: {
    readOnly: boolean;
    reporter: ReturnType<typeof progressReporter> | undefined;
    redactor: Redactor;
  },
): Promise<ToolOutput> {
  const { readOnly, reporter, redactor } = how;
  const server = connection.name;
  const callTimeout = connection.config.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const attempt = () =>
    connection.callTool(tool, args, {
      signal: context.signal,
      timeoutMs: callTimeout + SDK_TIMEOUT_MARGIN_MS,
      ...(reporter
        ? {
            onProgress: (progress: number, total?: number, message?: string) =>
              reporter.push({
                progress,
                ...(total === undefined ? {} : { total }),
                ...(message === undefined ? {} : { message }),
              }),
          }
        : {}),
    });
  try {
    return renderToolResult(await attempt(), {
      server,
      tool,
      maxChars: connection.config.maxResultChars,
      redact: (text: string) => redactor.redact(text),
      ...imagesOf(context),
    });
  } catch (error) {
    if (context.signal.aborted) throw error;
    if (error instanceof McpServerUnavailableError)
      return errorOutput(`${error.message} The call to ${tool} was not made.`, server, tool, {
        reason: 'unavailable',
      });
    if (connection.state !== 'failed' || connection.restarts >= 1) {
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
        return errorOutput(
          `MCP server ${server} did not answer ${tool} in time: ${error.message}`,
          server,
          tool,
          { reason: 'timeout' },
        );
      if (connection.state === 'failed')
        return errorOutput(
          `MCP server ${server} stopped during the call and was already restarted once this session; the outcome of ${tool} is unknown: verify state before retrying. (${describe(error)})`,
          server,
          tool,
          { reason: 'crashed' },
        );
      return errorOutput(`MCP server ${server} refused ${tool}: ${describe(error)}`, server, tool, {
        reason: 'protocol-error',
      });
    }
    const restarted = await connection.restartOnce();
    if (restarted && readOnly) {
      try {
        const output = renderToolResult(await attempt(), {
          server,
          tool,
          maxChars: connection.config.maxResultChars,
          redact: (text: string) => redactor.redact(text),
          ...imagesOf(context),
        });
        return { ...output, meta: { ...output.meta, retriedAfterRestart: true } };
      } catch (retryError) {
        if (context.signal.aborted) throw retryError;
        return errorOutput(
          `MCP server ${server} failed again after a restart: ${describe(retryError)}`,
          server,
          tool,
          { reason: 'crashed' },
        );
      }
    }
    return errorOutput(
      `MCP server ${server} stopped during the call (${describe(error)}); ${restarted ? 'it was restarted' : 'it could not be restarted'}. ${tool} is not read-only, so it was not retried: its outcome is unknown, verify state before retrying.`,
      server,
      tool,
      { reason: 'crashed' },
    );
  }
}

function definition(
  connection: ServerConnection,
  redactor: Redactor,
  name: string,
  tool: Pick<Tool, 'name' | 'description' | 'annotations' | 'title'> & { inputSchema: JsonSchema },
  run: (
    args: Record<string, unknown>,
    context: ToolExecutionContext,
    readOnly: boolean,
  ) => Promise<ToolOutput>,
): AnyToolDefinition {
  const policy = toolPolicy(tool.name, tool.annotations, connection.config);
  const text = cutAtCodePoint(
    redactor.redact(tool.description ?? tool.title ?? ''),
    MAX_DESCRIPTION,
  );
  const defined: ToolDefinition<Record<string, unknown>> = {
    spec: {
      name,
      description: `[MCP server ${connection.name}] ${text || `Tool ${tool.name}.`}`,
      parameters: tool.inputSchema,
    },
    execute: (args, context) => run(args, context, policy.readOnly),
    timeoutMs: connection.config.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    isConcurrencySafe: policy.isConcurrencySafe,
    permissions: policy.permissions,
  };
  return defined as unknown as AnyToolDefinition;
}

/** The tool definitions of one ready server: its tools (minus skipped ones) and `read_resource`. */
export function buildServerTools(
  connection: ServerConnection,
  options: {
    nameOf: (tool: string) => string;
    report: (diagnostic: { server: string; tool?: string; message: string }) => void;
    /** Replaces the server's configured secret values in its descriptions and results. */
    redactor: Redactor;
  },
): AnyToolDefinition[] {
  const out: AnyToolDefinition[] = [];
  const redactor = options.redactor;
  for (const tool of connection.tools) {
    if (connection.config.tools?.[tool.name]?.enabled === false) continue;
    const problem = schemaProblem(tool.inputSchema);
    if (problem !== undefined) {
      options.report({
        server: connection.name,
        tool: tool.name,
        message: `tool ${tool.name} skipped: its input schema does not compile (${problem})`,
      });
      continue;
    }
    const inputSchema = JSON.parse(JSON.stringify(tool.inputSchema)) as JsonSchema;
    out.push(
      definition(
        connection,
        redactor,
        options.nameOf(tool.name),
        { ...tool, inputSchema },
        (args, context, readOnly) => call(connection, tool.name, args, context, readOnly, redactor),
      ),
    );
  }
  if (
    connection.capabilities?.resources &&
    connection.config.tools?.read_resource?.enabled !== false
  ) {
    const resourceTool = {
      name: 'read_resource',
      description: `Reads one resource of MCP server ${connection.name} by URI (resources/read).`,
      annotations: { readOnlyHint: true },
      inputSchema: {
        type: 'object',
        properties: {
          uri: { type: 'string', description: 'The resource URI, e.g. file:///path.' },
        },
        required: ['uri'],
        additionalProperties: false,
      } as JsonSchema,
    };
    out.push(
      definition(
        connection,
        redactor,
        options.nameOf('read_resource'),
        resourceTool,
        async (args, context) => {
          const uri = String(args.uri);
          try {
            const result = (await connection.readResource(uri, context.signal)) as {
              contents?: unknown[];
            };
            const content = (result.contents ?? []).map((resource) => ({
              type: 'resource',
              resource,
            }));
            const output = renderToolResult(
              { content },
              {
                server: connection.name,
                tool: 'read_resource',
                maxChars: connection.config.maxResultChars,
                redact: (text: string) => redactor.redact(text),
              },
            );
            return redacted({ ...output, meta: { ...output.meta, sourceUrl: uri } }, redactor);
          } catch (error) {
            if (context.signal.aborted) throw error;
            return errorOutput(
              redactor.redact(
                `MCP server ${connection.name} could not read ${uri}: ${describe(error)}`,
              ),
              connection.name,
              'read_resource',
            );
          }
        },
      ),
    );
  }
  return out;
}
