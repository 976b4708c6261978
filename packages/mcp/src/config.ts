import { visibleText } from '@spine/protocol';
import { z } from 'zod';
import { McpConfigError } from './errors.js';

/** Per-tool overrides: a server's annotations are untrusted, so the user has the last word. */
export const McpToolOverrideSchema = z.strictObject({
  /** Treat the tool as read-only (approval and concurrency), whatever the server says. */
  readOnly: z.boolean().optional(),
  /** False hides the tool from the model. */
  enabled: z.boolean().optional(),
});
/** Per-tool overrides of one MCP server's annotations. */
export type McpToolOverride = z.infer<typeof McpToolOverrideSchema>;

const common = {
  /** False keeps the server configured but never started. */
  enabled: z.boolean().optional(),
  /** `lazy` (default): started when its tools are first needed; `eager`: at session start. */
  startup: z.literal(['lazy', 'eager']).optional(),
  /** Time limit for connecting and listing tools, ms (default 30 000). */
  startTimeoutMs: z.number().int().positive().optional(),
  /** Time limit for one tool call, ms (default 120 000). */
  callTimeoutMs: z.number().int().positive().optional(),
  /** Trust the server's `readOnlyHint`, so its read-only tools run without asking. */
  trust: z.boolean().optional(),
  /** Treat every tool of the server as read-only (true) or as side-effecting (false). */
  readOnly: z.boolean().optional(),
  /** Per-tool overrides, keyed by the server's own tool name. */
  tools: z.record(z.string(), McpToolOverrideSchema).optional(),
  /** Cap on the characters of one rendered result (default 40 000). */
  maxResultChars: z.number().int().positive().optional(),
  /** Answer the server's elicitation requests (a person answers them). Default false. */
  elicitation: z.boolean().optional(),
  /** Answer the server's sampling requests through the session's model. Default false. */
  sampling: z.boolean().optional(),
};

/** A local server started as a command speaking MCP over stdio. */
export const McpStdioServerConfigSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  /** Sandbox of the process: `workspace-write` (default) or `read-only`; `danger-full-access` only when set. */
  sandbox: z.literal(['read-only', 'workspace-write', 'danger-full-access']).optional(),
  /** Let the sandboxed process reach the network. Default false. */
  network: z.boolean().optional(),
  ...common,
});
/** A local server started as a command speaking MCP over stdio. */
export type McpStdioServerConfig = z.infer<typeof McpStdioServerConfigSchema>;

/** A remote server over Streamable HTTP (`http`, with the legacy SSE fallback) or legacy SSE (`sse`). */
export const McpRemoteServerConfigSchema = z.strictObject({
  type: z.literal(['http', 'sse']),
  url: z.string().min(1),
  headers: z.record(z.string(), z.string()).optional(),
  ...common,
});
/** A remote server over Streamable HTTP or legacy SSE. */
export type McpRemoteServerConfig = z.infer<typeof McpRemoteServerConfigSchema>;

/** One server entry of `mcpServers`. */
export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig;

/** `mcpServers` as in `.mcp.json`: server name → entry. */
export type McpServersConfig = Record<string, McpServerConfig>;

const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** True when the entry is a local stdio server. */
export function isStdioServer(config: McpServerConfig): config is McpStdioServerConfig {
  return config.type === undefined || config.type === 'stdio';
}

function issueText(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.join('.') || '(entry)'}: ${issue.message}`)
    .join('; ');
}

/**
 * Validates one server entry (the `.mcp.json` format, plus Spine's keys). Values are not expanded.
 *
 * @throws an {@link McpConfigError} when the entry is malformed.
 */
export function parseMcpServerConfig(
  name: string,
  value: unknown,
  options: { source?: string } = {},
): McpServerConfig {
  const source = options.source;
  if (!SERVER_NAME.test(name))
    throw new McpConfigError({
      server: name,
      source,
      reason: 'a server name is 1–64 characters of letters, digits, "_", "." and "-"',
    });
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject) throw new McpConfigError({ server: name, source, reason: 'expected an object' });
  const type = (value as { type?: unknown }).type;
  const schema =
    type === 'http' || type === 'sse' ? McpRemoteServerConfigSchema : McpStdioServerConfigSchema;
  if (type !== undefined && type !== 'stdio' && type !== 'http' && type !== 'sse')
    throw new McpConfigError({
      server: name,
      source,
      reason: `unknown type ${JSON.stringify(type)}; use "stdio", "http" or "sse"`,
    });
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new McpConfigError({ server: name, source, reason: issueText(parsed.error) });
  return parsed.data;
}

/**
 * Validates a whole `.mcp.json` document (`{ mcpServers: { … } }`) or a bare server map.
 *
 * @throws an {@link McpConfigError} when the document or an entry is malformed.
 * @example
 * ```ts
 * const servers = parseMcpConfig(JSON.parse(readFileSync('.mcp.json', 'utf8')), { source: '.mcp.json' });
 * ```
 */
export function parseMcpConfig(
  value: unknown,
  options: { source?: string } = {},
): McpServersConfig {
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject)
    throw new McpConfigError({ source: options.source, reason: 'expected a JSON object' });
  const record = value as Record<string, unknown>;
  const servers = 'mcpServers' in record ? record.mcpServers : record;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    throw new McpConfigError({ source: options.source, reason: 'mcpServers must be an object' });
  const out: McpServersConfig = {};
  for (const [name, entry] of Object.entries(servers))
    out[name] = parseMcpServerConfig(name, entry, options);
  return out;
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands `${NAME}` and `${NAME:-default}` in one string from `env`.
 *
 * @throws an {@link McpConfigError} naming the variable (never a value) when it is unset and has no
 *   default.
 */
export function expandVariables(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  context: { server: string; field: string },
): string {
  return text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    throw new McpConfigError({
      server: context.server,
      reason: `${context.field} refers to \${${name}}, which is not set; export it or give a default with \${${name}:-value}`,
    });
  });
}

function expandRecord(
  record: Record<string, string> | undefined,
  env: Readonly<Record<string, string | undefined>>,
  server: string,
  field: string,
): Record<string, string> | undefined {
  if (record === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(record))
    out[key] = expandVariables(value, env, { server, field: `${field}.${key}` });
  return out;
}

/**
 * Returns the entry with `${ENV}` references expanded in `command`, `args`, `env`, `cwd`, `url`
 * and `headers`. The expanded values are secrets as far as Spine is concerned: they are passed to
 * the process or the HTTP request and never logged (see {@link describeServer}).
 *
 * @throws an {@link McpConfigError} when a referenced variable is unset.
 */
export function expandServerConfig(
  name: string,
  config: McpServerConfig,
  env: Readonly<Record<string, string | undefined>> = process.env,
): McpServerConfig {
  if (isStdioServer(config)) {
    const expanded: McpStdioServerConfig = {
      ...config,
      command: expandVariables(config.command, env, { server: name, field: 'command' }),
    };
    if (config.args)
      expanded.args = config.args.map((arg, index) =>
        expandVariables(arg, env, { server: name, field: `args[${index}]` }),
      );
    const expandedEnv = expandRecord(config.env, env, name, 'env');
    if (expandedEnv) expanded.env = expandedEnv;
    if (config.cwd !== undefined)
      expanded.cwd = expandVariables(config.cwd, env, { server: name, field: 'cwd' });
    return expanded;
  }
  const remote: McpRemoteServerConfig = {
    ...config,
    url: expandVariables(config.url, env, { server: name, field: 'url' }),
  };
  const headers = expandRecord(config.headers, env, name, 'headers');
  if (headers) remote.headers = headers;
  return remote;
}

/**
 * A one-line description of a server entry safe to print or log: environment and header values
 * are replaced by `***` (their names stay), the URL loses its query string and credentials. Pass
 * the entry as configured (before {@link expandServerConfig}), so `${ENV}` references in `args`
 * stay references. Control characters are made visible, so the line is safe to print.
 */
export function describeServer(config: McpServerConfig): string {
  if (isStdioServer(config)) {
    const env = Object.keys(config.env ?? {}).map((key) => `${key}=***`);
    const words = [config.command, ...(config.args ?? [])].map((word) =>
      /^[\w./:@=-]+$/.test(word) ? word : JSON.stringify(word),
    );
    return visibleText([...env, ...words].join(' '));
  }
  let url = config.url;
  try {
    const parsed = new URL(config.url);
    url = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    url = '(invalid URL)';
  }
  const headers = Object.keys(config.headers ?? {}).map((key) => `${key}: ***`);
  return visibleText([`${config.type} ${url}`, ...headers].join(', '));
}
