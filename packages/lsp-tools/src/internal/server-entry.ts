import type { LanguageServerConfig, ServerStatus } from '../types.js';
import type { ServerSession } from './server-pool.js';

/** The pool's bookkeeping for one configured server. */
export interface Entry {
  config: LanguageServerConfig;
  command: string | undefined;
  session?: ServerSession;
  starting?: Promise<ServerSession>;
  starts: number;
  active: number;
  lastError?: string;
  startFailed: boolean;
  hasFiles?: { found: boolean; at: number };
  idleTimer?: NodeJS.Timeout;
}

/** The `spine doctor` view of one entry. */
export function statusOf(entry: Entry): ServerStatus {
  const alive = entry.session?.client.alive === true;
  const status: ServerStatus = {
    id: entry.config.id,
    command: entry.config.command,
    args: entry.config.args ?? [],
    extensions: Object.keys(entry.config.languages),
    available: entry.command !== undefined,
    state: entry.starting
      ? 'starting'
      : alive
        ? 'running'
        : entry.session
          ? 'crashed'
          : entry.startFailed
            ? 'failed'
            : 'stopped',
    starts: entry.starts,
  };
  if (entry.command === undefined) status.reason = unavailableReason(entry.config);
  if (alive && entry.session?.client.pid !== undefined) status.pid = entry.session.client.pid;
  const lastError = entry.session?.client.exitReason ?? entry.lastError;
  if (lastError) status.lastError = lastError;
  return status;
}

/** Why a server cannot start, and what to do. */
export function unavailableReason(config: LanguageServerConfig): string {
  const hint = config.installHint ? `; install it with \`${config.installHint}\`` : '';
  return `The ${config.id} language server (${config.command}) is not installed or not on PATH${hint}, or use grep and read instead`;
}
