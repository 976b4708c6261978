import type { ModelClient } from '@spine/protocol';
import { Session } from '@spine/session-log';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { SessionNotFoundError, UsageError } from '../errors.js';
import { EXIT_CODES } from '../exit-codes.js';
import { resolveModel } from '../model-config.js';
import { formatBytes, styleFor } from '../present/style.js';
import { rebuildRequest } from '../rebuild-request.js';
import { storeFor } from '../store.js';

/**
 * `spine replay <id> [--request N] [--verify] [--json]`: rebuilds every recorded request from the
 * log and checks its hashes; `--request N` prints what the model saw at request N (the exact wire
 * body when the provider's client can encode it). Exit 5 on a mismatch with `--verify`.
 */
export async function replayCommand(
  id: string,
  flags: AgentFlags & { request?: string; verify?: boolean },
): Promise<number> {
  if (flags.request !== undefined && !/^[1-9]\d*$/.test(flags.request)) {
    throw new UsageError({
      message: `--request expects a request number (1, 2, …), got "${flags.request}"`,
    });
  }
  const { config } = configForFlags(flags).loaded;
  const store = storeFor(config);
  if (!(await store.exists(id)))
    throw new SessionNotFoundError({ sessionId: id, dir: config.sessionDir });
  const session = await Session.open({ store, id, readOnly: true });
  try {
    const { replay } = await import('@spine/agent-loop');
    const encoder = await encoderFor(config, session.header.model);
    const report = replay(session, encoder ? { model: encoder } : {});
    if (flags.request !== undefined) {
      const entry = report.requests[Number(flags.request) - 1];
      if (!entry) {
        throw new UsageError({
          message: `${id} has ${report.requests.length} recorded requests; --request ${flags.request} is out of range`,
        });
      }
      const request = rebuildRequest(session, entry.seq);
      const wire = encoder?.encodeRequest ? encoder.encodeRequest(request) : undefined;
      if (flags.json)
        process.stdout.write(`${JSON.stringify({ ...entry, request, wire }, null, 2)}\n`);
      else process.stdout.write(`${wire ?? JSON.stringify(request, null, 2)}\n`);
      if (!entry.ok)
        process.stderr.write(
          `request ${flags.request} does not match its recorded hash: ${entry.mismatch?.field}\n`,
        );
      return entry.ok || !flags.verify ? EXIT_CODES.ok : EXIT_CODES.mismatch;
    }
    if (flags.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else {
      const style = styleFor(process.stdout);
      report.requests.forEach((entry, index) => {
        const mark = entry.ok
          ? style.green('ok')
          : style.red(`MISMATCH ${entry.mismatch?.field ?? ''}`);
        const wire =
          entry.wireBytes === undefined
            ? ''
            : ` wire ${formatBytes(entry.wireBytes)} ${entry.wireHash?.slice(0, 19)}`;
        const where =
          entry.mismatch?.eventSeq === undefined ? '' : ` (event seq ${entry.mismatch.eventSeq})`;
        process.stdout.write(
          `request ${index + 1}: seq ${entry.seq} turn ${entry.turn} step ${entry.step} attempt ${entry.attempt} ${mark}${where}${wire}\n`,
        );
      });
      const verdict = report.ok
        ? `verified: all ${report.requests.length} requests rebuilt from the log match their recorded hashes`
        : `MISMATCH at request seq ${report.firstMismatch?.seq}: field ${report.firstMismatch?.mismatch?.field}`;
      process.stdout.write(`${report.ok ? style.green(verdict) : style.red(verdict)}\n`);
    }
    return report.ok || !flags.verify ? EXIT_CODES.ok : EXIT_CODES.mismatch;
  } finally {
    await session.close();
  }
}

/** A client of the recorded provider, only to encode wire bodies (no key, no network). */
async function encoderFor(
  config: import('../config/schema.js').SpineConfig,
  recorded: string | undefined,
): Promise<ModelClient | undefined> {
  try {
    const name = recorded ?? config.model;
    const baseUrl =
      config.baseUrl ?? (name.startsWith('openai-compatible/') ? 'http://127.0.0.1' : undefined);
    const model = await resolveModel({ ...config, model: name, ...(baseUrl ? { baseUrl } : {}) });
    return model.client;
  } catch {
    return undefined;
  }
}
