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
  /** Failed starts in a row (reset by a successful one). */
  failures: number;
  /** No new start before this `Date.now()` time, after failures. */
  retryAt?: number;
  /** Times of recent crashes after a successful start. */
  crashes: number[];
  /** True once a start succeeded (the initialize handshake proves the install). */
  started?: boolean;
  /** Outcome of the version command, once run. */
  probe?: { ok: boolean; detail: string };
}

/** The `spine doctor` view of one entry. */
export function statusOf(entry: Entry): ServerStatus {
  const alive = entry.session?.client.alive === true;
  const status: ServerStatus = {
    id: entry.config.id,
    command: entry.config.command,
    args: entry.config.args ?? [],
    extensions: Object.keys(entry.config.languages),
    available:
      entry.command !== undefined &&
      entry.probe?.ok !== false &&
      !(entry.retryAt !== undefined && Date.now() < entry.retryAt),
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
  else if (entry.probe?.ok === false) status.reason = probeReason(entry.config, entry.probe.detail);
  else if (entry.retryAt !== undefined && Date.now() < entry.retryAt)
    status.reason = failedReason(entry, entry.retryAt - Date.now());
  if (entry.probe?.ok) status.version = entry.probe.detail;
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

function hintOf(config: LanguageServerConfig): string {
  return config.installHint ? ` Install or repair it with \`${config.installHint}\`.` : '';
}

/** Why a server whose version command failed is unavailable. */
export function probeReason(config: LanguageServerConfig, detail: string): string {
  return `The ${config.id} language server (${config.command}) is on PATH but does not run: ${detail}.${hintOf(config)} Use grep and read meanwhile.`;
}

/** Why a server that failed to start is not started again yet. */
export function failedReason(entry: Entry, waitMs: number): string {
  const cause = entry.lastError ?? 'it failed to start';
  return `The ${entry.config.id} language server could not be started (${entry.failures} failed start${entry.failures === 1 ? '' : 's'}; next try in ${Math.ceil(waitMs / 1000)} s): ${cause}.${hintOf(entry.config)} Use grep and read meanwhile.`;
}
