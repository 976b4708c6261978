import { isAbsolute, resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { McpCommandWrapper } from '../command.js';
import type { McpStdioServerConfig } from '../config.js';
import { installBoundedReader } from './bounded-reader.js';

/**
 * The stdio transport of one server: its command wrapped by the sandbox (unless the entry, as
 * capped by the application, says `danger-full-access`), a bounded reader in place of the SDK's
 * (a message over the limit is cut, not fatal), and stderr decoded and handed to `onStderr`.
 */
export function createStdioTransport(
  name: string,
  config: McpStdioServerConfig,
  options: {
    cwd: string;
    wrapCommand?: McpCommandWrapper | undefined;
    onStderr: (text: string) => void;
  },
): StdioClientTransport {
  const cwd =
    config.cwd === undefined
      ? options.cwd
      : isAbsolute(config.cwd)
        ? config.cwd
        : resolve(options.cwd, config.cwd);
  let command = { command: config.command, args: config.args ?? [], env: config.env ?? {} };
  const sandbox = config.sandbox ?? 'workspace-write';
  if (sandbox !== 'danger-full-access' && options.wrapCommand)
    command = options.wrapCommand(command, {
      server: name,
      sandbox,
      network: config.network === true,
      cwd,
    });
  const transport = new StdioClientTransport({ ...command, cwd, stderr: 'pipe' });
  installBoundedReader(transport);
  const decoder = new StringDecoder('utf8');
  transport.stderr?.on('data', (chunk: Buffer) => options.onStderr(decoder.write(chunk)));
  return transport;
}
