import { Readable, Writable } from 'node:stream';
import { serveAcp } from '@spine/acp';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { cliVersion } from '../version.js';

/**
 * `spine acp [options]`: serves Spine to an editor over the Agent Client Protocol on stdin and
 * stdout (NDJSON JSON-RPC). stdout carries only protocol messages; warnings go to stderr. The
 * flags apply to every session; each session's workspace is the `cwd` the editor names.
 * Returns when the editor closes the connection (every session closed, turns ended cleanly).
 */
export async function acpCommand(flags: AgentFlags): Promise<number> {
  // Validated once up front, so a bad flag fails before the editor sees a connection.
  configForFlags(flags);
  const version = cliVersion();
  const server = await serveAcp(
    {
      input: Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
      output: Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    },
    {
      version,
      config: (cwd) => configForFlags({ ...flags, cwd }).loaded.config,
      onWarning: (message) => process.stderr.write(`warning: ${message}\n`),
    },
  );
  // SIGTERM / SIGINT from the editor: end every turn like Ctrl-C (turn/end recorded), then exit.
  const stop = (): void => void server.close();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    await server.closed;
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  }
  return 0;
}
