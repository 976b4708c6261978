import { homedir } from 'node:os';
import { join } from 'node:path';
import { InvalidConfigError } from '../errors.js';
import { readJsonFile } from '../json-file.js';

/** A file holding `mcpServers` in the format Claude Code and others use. */
export interface McpServersFile {
  /** The file. */
  path: string;
  /** Its `mcpServers` object (entries not validated here: the MCP package does it on use). */
  servers: Record<string, Record<string, unknown>>;
}

/** The project's `.mcp.json`. */
export function projectMcpFile(cwd: string): string {
  return join(cwd, '.mcp.json');
}

/** Claude Code's user file, whose top-level `mcpServers` Spine also reads. */
export function claudeUserFile(env: NodeJS.ProcessEnv): string {
  return join(env.HOME ?? homedir(), '.claude.json');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads `mcpServers` from a JSON file, or `undefined` when the file does not exist or has none.
 *
 * @throws an {@link InvalidConfigError} when the file is not JSON or `mcpServers` is not an object
 *   of objects.
 */
export function readMcpServersFile(path: string): McpServersFile | undefined {
  const data = readJsonFile(path);
  if (data === undefined) return undefined;
  if (!isPlainObject(data) || data.mcpServers === undefined) return undefined;
  if (!isPlainObject(data.mcpServers))
    throw new InvalidConfigError({ source: path, key: 'mcpServers', expected: 'an object' });
  const servers: Record<string, Record<string, unknown>> = {};
  for (const [name, entry] of Object.entries(data.mcpServers)) {
    if (!isPlainObject(entry))
      throw new InvalidConfigError({
        source: path,
        key: `mcpServers.${name}`,
        expected: 'an object ({ command, args, env } or { type, url, headers })',
      });
    servers[name] = entry;
  }
  return { path, servers };
}

/** True for a configuration key whose value may be a secret (`mcp.servers.x.env.TOKEN`, `….headers.…`). */
export function isSecretKey(key: string): boolean {
  return /^mcp\.servers\.[^.]+\.(env|headers)\./.test(key);
}
