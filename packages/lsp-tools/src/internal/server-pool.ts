import { extname } from 'node:path';
import { LspAbortedError, LspFailedError, LspUnavailableError } from '../errors.js';
import type { LanguageServerConfig, ServerStatus } from '../types.js';
import { LspClient } from './client.js';
import { findCommand } from './command.js';
import { DocumentSync, type SyncTarget } from './documents.js';
import { findWorkspaceFile } from './paths.js';
import { type Entry, statusOf, unavailableReason } from './server-entry.js';

/** A started server with its document view. */
export interface ServerSession {
  client: LspClient;
  documents: DocumentSync;
  /** Opens/re-syncs `path` (absolute) and returns its URI. */
  sync(path: string): Promise<string>;
  /** Syncs changed files and makes sure one workspace file is open (workspace queries need a project). */
  ensureProject(): Promise<void>;
}

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
}

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
    if (entry.session) entry.lastError = entry.session.client.exitReason;
    entry.session = undefined;
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
      const documents = new DocumentSync(client, this.options.onChangedOnDisk);
      const languageOf = (path: string): string =>
        config.languages[extname(path).toLowerCase()] ?? config.id;
      // Files changed this session are opened too: the server then sees the new content even
      // where its own file watching is slow, and re-checks the files that depend on them.
      const changedTargets = (): SyncTarget[] =>
        this.options
          .changedFiles()
          .filter((path) => extname(path).toLowerCase() in config.languages)
          .map((path) => ({ path, languageId: languageOf(path), changed: true }));
      const session: ServerSession = {
        client,
        documents,
        sync: async (path) => {
          await documents.sync([...changedTargets(), { path, languageId: languageOf(path) }]);
          return DocumentSync.uriOf(path);
        },
        ensureProject: async () => {
          const targets = changedTargets();
          if (documents.size === 0 && targets.length === 0) {
            const seed = await findWorkspaceFile(this.options.cwd, Object.keys(config.languages));
            if (seed) targets.push({ path: seed, languageId: languageOf(seed) });
          }
          await documents.sync(targets);
        },
      };
      entry.session = session;
      entry.startFailed = false;
      return session;
    } catch (error) {
      entry.lastError = (error as Error).message;
      entry.startFailed = true;
      throw error;
    }
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
