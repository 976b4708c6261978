// MCP servers the client passes with `session/new` / `load` / `resume`, added to the session's
// configuration in Spine's own entry format, so the harness connects them as it connects the
// project's: through @spine/mcp, a stdio server under the shell's OS sandbox, each call recorded
// (replay and rerun use the recorded results, never the server).
import type { McpServer } from '@agentclientprotocol/sdk';
import type { SpineConfig } from '@spine/harness';

function pairs(list: readonly { name: string; value: string }[]): Record<string, string> {
  return Object.fromEntries(list.map((entry) => [entry.name, entry.value]));
}

/** The entry of one client server in the `mcp.servers` format. */
export function serverEntry(server: McpServer): Record<string, unknown> {
  if ('type' in server && (server.type === 'http' || server.type === 'sse'))
    return { type: server.type, url: server.url, headers: pairs(server.headers) };
  const stdio = server as Extract<McpServer, { command: string }>;
  return { command: stdio.command, args: stdio.args, env: pairs(stdio.env) };
}

/** `config` with the client's servers added (a client server replaces a configured one of its name). */
export function withClientServers(config: SpineConfig, servers: readonly McpServer[]): SpineConfig {
  if (servers.length === 0) return config;
  const added = Object.fromEntries(servers.map((server) => [server.name, serverEntry(server)]));
  return { ...config, mcp: { ...config.mcp, servers: { ...config.mcp.servers, ...added } } };
}
