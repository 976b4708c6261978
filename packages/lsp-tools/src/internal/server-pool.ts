import { extname } from 'node:path';
import { LspAbortedError, LspFailedError, LspUnavailableError } from '../errors.js';
import type { LanguageServerConfig, ServerStatus } from '../types.js';
import { LspClient } from './client.js';
import { findCommand } from './command.js';
import { findWorkspaceFile } from './paths.js';
import { probeVersion } from './probe.js';
import {
  type Entry,
  failedReason,
  probeReason,
  statusOf,
  unavailableReason,
} from './server-entry.js';
import { createSession, type ServerSession } from './session.js';

export type { ServerSession } from './session.js';

/** Options of {@link ServerPool}. */
export interface ServerPoolOptions {
  cwd: string;
  servers: LanguageServerConfig[];
  idleTimeoutMs: number;
  requestTimeoutMs: number;
  startupTimeoutMs: number;
  path: string | undefined;
  onChangedOnDisk: (path: string) => void;
  /** Files changed in this session (absolute paths). */
  changedFiles: () => readonly string[];
  /** Upper bound for waiting on a server's initial analysis (ms). */
  analysisTimeoutMs: number;
  /** First wait before a server that failed to start is started again (ms); doubles each time. */
  startRetryMs: number;
}

/** Crashes within this window count together; this many make the server wait like a failed start. */
const CRASH_WINDOW_MS = 60_000;
const CRASH_LIMIT = 3;
const RETRY_CAP_MS = 600_000;

/**
 * Starts servers on first use, reuses them, restarts them after a crash (once per query) and
 * stops them when idle or on shutdown.
 */
export class ServerPool {
  private readonly entries: Entry[];
  private closed = false;
  // Every process until it exits, including ones being shut down.
  private readonly live = new Set<LspClient>();

  constructor(private readonly options: ServerPoolOptions) {
    this.entries = options.servers.map((config) => ({
      config,
      command: findCommand(config.command, options.path),
      starts: 0,
      active: 0,
      startFailed: false,
      failures: 0,
      crashes: [],
    }));
  }

  /** Live processes. */
  get processCount(): number {
    return this.live.size;
  }

  /** Processes started so far. */
  get starts(): number {
    return this.entries.reduce((sum, entry) => sum + entry.starts, 0);
  }

  /** The configured server for a path's extension, if any (installed or not). */
  configFor(path: string): LanguageServerConfig | undefined {
    return this.entryForExtension(extname(path).toLowerCase())?.config;
  }

  /** True when a server is configured and installed for the path. */
  serves(path: string): boolean {
    const entry = this.entryForExtension(extname(path).toLowerCase());
    return entry?.command !== undefined;
  }

  /**
   * `language` alone (it must be configured and installed), or else every installed server
   * with at least one file in the workspace. A found file is remembered; "none" for 30 s.
   */
  async serversWithFiles(language?: string): Promise<string[]> {
    if (language !== undefined)
      return [this.requireEntry(this.entryById(language), language).config.id];
    const ids: string[] = [];
    for (const entry of this.entries) {
      if (entry.command === undefined) continue;
      const known = entry.hasFiles;
      if (!known || (!known.found && performance.now() - known.at > 30_000)) {
        const found = await findWorkspaceFile(
          this.options.cwd,
          Object.keys(entry.config.languages),
        );
        entry.hasFiles = { found: found !== undefined, at: performance.now() };
      }
      if (entry.session || entry.hasFiles?.found) ids.push(entry.config.id);
    }
    return ids;
  }

  /** Runs `fn` on the server for `path`'s language; a crash mid-query restarts it once. */
  runForPath<T>(
    path: string,
    fn: (session: ServerSession) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const extension = extname(path).toLowerCase();
    const entry = this.requireEntry(this.entryForExtension(extension), extension || path);
    return this.run(entry, fn, signal);
  }

  /** Runs `fn` on the server with this id. */
  runForServer<T>(
    id: string,
    fn: (session: ServerSession) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    return this.run(this.requireEntry(this.entryById(id), id), fn, signal);
  }

  /** One status per configured server. */
  status(): ServerStatus[] {
    return this.entries.map(statusOf);
  }

  /** Runs each installed server's version command (once) and returns the statuses. */
  async checkServers(): Promise<ServerStatus[]> {
    await Promise.all(
      this.entries.map(async (entry) => {
        if (entry.command === undefined || entry.probe || !entry.config.versionArgs) return;
        entry.probe = await probeVersion(entry.command, entry.config, this.options.cwd);
      }),
    );
    return this.status();
  }

  /** Stops every server; later queries are refused. */
  async shutdown(): Promise<void> {
    this.closed = true;
    await Promise.all(this.entries.map((entry) => this.stop(entry)));
  }

  private async run<T>(
    entry: Entry,
    fn: (session: ServerSession) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    entry.active += 1;
    clearTimeout(entry.idleTimer);
    try {
      for (let attempt = 0; ; attempt += 1) {
        const session = await this.ensure(entry, signal);
        try {
          return await fn(session);
        } catch (error) {
          if (session.client.alive || attempt > 0 || error instanceof LspAbortedError) throw error;
          entry.lastError = (error as Error).message;
        }
      }
    } finally {
      entry.active -= 1;
      this.scheduleIdle(entry);
    }
  }

  private ensure(entry: Entry, signal?: AbortSignal): Promise<ServerSession> {
    if (this.closed) {
      return Promise.reject(
        new LspFailedError({
          serverId: entry.config.id,
          message: 'The LSP manager was shut down; create a new one to query again',
        }),
      );
    }
    if (entry.session?.client.alive) return Promise.resolve(entry.session);
    if (entry.session) {
      entry.lastError = entry.session.client.exitReason;
      entry.session.close();
      const now = Date.now();
      entry.crashes = [...entry.crashes.filter((at) => now - at < CRASH_WINDOW_MS), now];
      if (entry.crashes.length >= CRASH_LIMIT) this.fail(entry);
    }
    entry.session = undefined;
    if (entry.probe?.ok === false) {
      return Promise.reject(
        new LspUnavailableError({
          language: entry.config.id,
          reason: probeReason(entry.config, entry.probe.detail),
        }),
      );
    }
    if (!entry.starting && entry.retryAt !== undefined && Date.now() < entry.retryAt) {
      return Promise.reject(
        new LspUnavailableError({
          language: entry.config.id,
          reason: failedReason(entry, entry.retryAt - Date.now()),
        }),
      );
    }
    // The start is shared and not tied to one caller's signal: a cancelled query does not
    // waste a cold start that the next query will need.
    entry.starting ??= this.start(entry).finally(() => {
      entry.starting = undefined;
    });
    return untilAborted(entry.starting, signal);
  }

  private async start(entry: Entry): Promise<ServerSession> {
    entry.starts += 1;
    const { config } = entry;
    try {
      const client = await LspClient.start({
        config,
        command: entry.command!,
        cwd: this.options.cwd,
        requestTimeoutMs: this.options.requestTimeoutMs,
        startupTimeoutMs: this.options.startupTimeoutMs,
      });
      this.live.add(client);
      client.onExit(() => this.live.delete(client));
      const session = createSession(client, {
        cwd: this.options.cwd,
        config,
        changedFiles: this.options.changedFiles,
        onChangedOnDisk: this.options.onChangedOnDisk,
        analysisTimeoutMs: this.options.analysisTimeoutMs,
      });
      entry.session = session;
      entry.startFailed = false;
      entry.failures = 0;
      entry.retryAt = undefined;
      entry.started = true;
      return session;
    } catch (error) {
      entry.lastError = (error as Error).message;
      entry.startFailed = true;
      this.fail(entry);
      throw error;
    }
  }

  /** Remembers a failure: no new start before the back-off time, which doubles each time. */
  private fail(entry: Entry): void {
    entry.failures += 1;
    const wait = Math.min(RETRY_CAP_MS, this.options.startRetryMs * 2 ** (entry.failures - 1));
    entry.retryAt = Date.now() + wait;
    entry.crashes = [];
  }

  private scheduleIdle(entry: Entry): void {
    clearTimeout(entry.idleTimer);
    if (entry.active > 0 || !entry.session) return;
    entry.idleTimer = setTimeout(() => {
      if (entry.active === 0) void this.stop(entry);
    }, this.options.idleTimeoutMs);
    entry.idleTimer.unref();
  }

  private async stop(entry: Entry): Promise<void> {
    clearTimeout(entry.idleTimer);
    const session = entry.session ?? (await entry.starting?.catch(() => undefined));
    entry.session = undefined;
    session?.close();
    await session?.client.shutdown();
  }

  private entryForExtension(extension: string): Entry | undefined {
    return this.entries.find((entry) => extension in entry.config.languages);
  }

  private entryById(id: string): Entry | undefined {
    return this.entries.find((entry) => entry.config.id === id);
  }

  private requireEntry(entry: Entry | undefined, language: string): Entry {
    if (!entry) {
      const known = this.entries.map((each) => each.config.id).join(', ') || 'none';
      throw new LspUnavailableError({
        language,
        reason: `No language server is configured for ${language} (configured: ${known}); use grep or read for these files instead`,
      });
    }
    if (entry.command === undefined) {
      throw new LspUnavailableError({ language, reason: unavailableReason(entry.config) });
    }
    return entry;
  }
}

/** `promise`, or a rejection with {@link LspAbortedError} as soon as `signal` fires. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new LspAbortedError({ method: 'initialize' }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new LspAbortedError({ method: 'initialize' }));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
