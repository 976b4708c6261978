import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { claudeUserFile, configHome, projectMcpFile, UsageError } from '@spine/harness';
import { visibleJson, visibleText } from '@spine/protocol';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';

/** Flags of `spine mcp`. */
export interface McpCommandFlags extends AgentFlags {
  /** `project` (`.mcp.json`, default) or `user` (Spine's user config file). */
  scope?: string;
  /** `stdio` (default), `http` or `sse`. */
  transport?: string;
  /** `KEY=VALUE` pairs for a stdio server's environment (values may be `${ENV}` references). */
  env?: string[];
  /** `Name: value` headers for a remote server. */
  header?: string[];
  /** `serve`: comma-separated tool names. */
  tools?: string;
  /** `serve`: Streamable HTTP instead of stdio. */
  http?: boolean;
  /** `serve --http`: the port. */
  port?: string;
  /** `serve --http`: the loopback address. */
  host?: string;
}

function masked(entry: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...entry };
  for (const key of ['env', 'headers'] as const) {
    const value = entry[key];
    if (value && typeof value === 'object')
      out[key] = Object.fromEntries(Object.keys(value).map((name) => [name, '***']));
  }
  return out;
}

function readJson(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}

function writeJson(path: string, data: Record<string, unknown>): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
}

/** The file `add`/`remove` edit for a scope, and the object holding the servers in it. */
function target(
  scope: string,
  cwd: string,
): { path: string; servers: (data: Record<string, unknown>) => Record<string, unknown> } {
  if (scope === 'project')
    return {
      path: projectMcpFile(cwd),
      servers: (data) => {
        data.mcpServers ??= {};
        return data.mcpServers as Record<string, unknown>;
      },
    };
  if (scope === 'user')
    return {
      path: join(configHome(process.env), 'config.json'),
      servers: (data) => {
        data.mcp ??= {};
        const mcp = data.mcp as Record<string, unknown>;
        mcp.servers ??= {};
        return mcp.servers as Record<string, unknown>;
      },
    };
  throw new UsageError({ message: `--scope ${scope} is not known; use project or user` });
}

function pairs(
  values: readonly string[] | undefined,
  separator: RegExp,
  what: string,
): Record<string, string> | undefined {
  if (!values || values.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const value of typeof values === 'string' ? [values] : values) {
    const match = separator.exec(value);
    if (!match || match.index === 0)
      throw new UsageError({
        message: `${what} ${JSON.stringify(value)} is not ${what === '--env' ? 'KEY=VALUE' : '"Name: value"'}`,
      });
    out[value.slice(0, match.index).trim()] = value.slice(match.index + match[0].length).trim();
  }
  return out;
}

/**
 * `spine mcp list | get <name> | add <name> <command-or-url> [args…] | remove <name>`: shows the
 * configured servers (values of `env` and `headers` as `***`) and edits `.mcp.json` (`--scope
 * project`, default) or Spine's user config file (`--scope user`). Nothing here starts a server;
 * `spine doctor` does.
 */
export async function mcpCommand(
  action: string,
  name: string | undefined,
  rest: string[],
  flags: McpCommandFlags,
): Promise<number> {
  if (action === 'serve') {
    if (name !== undefined)
      throw new UsageError({ message: 'spine mcp serve takes no name; choose tools with --tools' });
    return (await import('./serve.js')).mcpServeCommand(flags);
  }
  const { loaded, cwd } = configForFlags(flags);
  const servers = loaded.config.mcp.servers;
  const origin = (server: string): string => {
    for (const [key, source] of loaded.provenance)
      if (key.startsWith(`mcp.servers.${server}.`)) return source.origin;
    return 'configuration';
  };
  if (action === 'list') {
    const { describeServer, parseMcpServerConfig } = await import('@spine/mcp');
    const rows = Object.entries(servers).map(([server, entry]) => {
      let description: string;
      try {
        description = describeServer(parseMcpServerConfig(server, entry));
      } catch (error) {
        description = `invalid: ${(error as Error).message}`;
      }
      return {
        name: server,
        enabled: entry.enabled !== false,
        description,
        origin: origin(server),
      };
    });
    // Entries come from files anyone controlling the repository writes: printed made visible.
    if (flags.json) process.stdout.write(`${visibleJson(JSON.stringify(rows))}\n`);
    else if (rows.length === 0)
      process.stdout.write(
        `No MCP servers configured (add one with \`spine mcp add <name> -- <command> [args…]\`).\n`,
      );
    else
      for (const row of rows)
        process.stdout.write(
          `${row.name}${row.enabled ? '' : ' (disabled)'}: ${visibleText(row.description)}  [${visibleText(row.origin)}]\n`,
        );
    return EXIT_CODES.ok;
  }
  if (!name) throw new UsageError({ message: `spine mcp ${action} needs a server name` });
  if (action === 'get') {
    const entry = servers[name];
    if (!entry)
      throw new UsageError({
        message: `no MCP server named ${JSON.stringify(name)}; see \`spine mcp list\``,
      });
    const shown = { name, origin: origin(name), ...masked(entry) };
    process.stdout.write(
      visibleJson(
        flags.json ? `${JSON.stringify(shown)}\n` : `${JSON.stringify(shown, null, 2)}\n`,
      ),
    );
    return EXIT_CODES.ok;
  }
  const scope = flags.scope ?? 'project';
  const file = target(scope, cwd);
  if (action === 'add') {
    const [first, ...args] = rest;
    if (!first)
      throw new UsageError({
        message: 'spine mcp add <name> needs a command (stdio) or a URL (--transport http|sse)',
      });
    const transport = flags.transport ?? 'stdio';
    const entry: Record<string, unknown> =
      transport === 'stdio'
        ? {
            command: first,
            ...(args.length ? { args } : {}),
            ...(flags.env?.length ? { env: pairs(flags.env, /=/, '--env') } : {}),
          }
        : {
            type: transport,
            url: first,
            ...(flags.header?.length ? { headers: pairs(flags.header, /:/, '--header') } : {}),
          };
    const { parseMcpServerConfig } = await import('@spine/mcp');
    parseMcpServerConfig(name, entry, { source: 'spine mcp add' });
    const data = readJson(file.path);
    const held = file.servers(data);
    if (held[name])
      throw new UsageError({
        message: `${file.path} already has an MCP server named ${JSON.stringify(name)}; remove it first`,
      });
    held[name] = entry;
    writeJson(file.path, data);
    process.stdout.write(`Added MCP server ${name} to ${file.path}\n`);
    return EXIT_CODES.ok;
  }
  if (action === 'remove') {
    const data = readJson(file.path);
    const held = file.servers(data);
    if (!held[name]) {
      const where = origin(name);
      const hint = servers[name]
        ? where === claudeUserFile(process.env)
          ? ` (it comes from ${where}; remove it there)`
          : ` (it comes from ${where}; try --scope ${scope === 'project' ? 'user' : 'project'})`
        : '';
      throw new UsageError({
        message: `${file.path} has no MCP server named ${JSON.stringify(name)}${hint}`,
      });
    }
    delete held[name];
    writeJson(file.path, data);
    process.stdout.write(`Removed MCP server ${name} from ${file.path}\n`);
    return EXIT_CODES.ok;
  }
  throw new UsageError({
    message: `unknown action ${JSON.stringify(action)}; use list, get, add, remove or serve`,
  });
}
