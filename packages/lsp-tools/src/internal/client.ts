import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CancellationTokenSource,
  createMessageConnection,
  type MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import {
  type Diagnostic,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  type PublishDiagnosticsParams,
  type ServerCapabilities,
  ShutdownRequest,
} from 'vscode-languageserver-protocol/node';
import { LspAbortedError, LspFailedError } from '../errors.js';
import type { LanguageServerConfig } from '../types.js';
import { answerServerRequest, CLIENT_CAPABILITIES } from './capabilities.js';
import { conciseError } from './positions.js';
import { killOnProcessExit } from './reaper.js';

/** What the client needs to start a server. */
export interface LspClientOptions {
  config: LanguageServerConfig;
  /** The resolved executable. */
  command: string;
  cwd: string;
  requestTimeoutMs: number;
  startupTimeoutMs: number;
  signal?: AbortSignal;
}

/** The last diagnostics a server pushed for one document. */
export interface PushedDiagnostics {
  items: Diagnostic[];
  receivedAt: number;
  /** How many times the server published for this document. */
  count: number;
}

/** A request type as vscode-languageserver-protocol declares it: the method plus phantom types. */
export interface TypedRequest<P, R> {
  method: string;
  readonly _?: [P, R, unknown, unknown];
}

const STDERR_TAIL = 2000;

/**
 * One running language server over stdio: spawn, initialize, requests tied to an AbortSignal
 * and a timeout, answers to server-to-client requests, pushed diagnostics, shutdown.
 */
export class LspClient {
  readonly serverId: string;
  readonly pid: number | undefined;
  capabilities: ServerCapabilities = {};
  readonly diagnostics = new Map<string, PushedDiagnostics>();
  private exitReasonText: string | undefined;
  private stderrTail = '';
  private readonly exitWaiters = new Set<(reason: string) => void>();
  /** Work-done progress tokens begun and not yet ended (project loading, analysis). */
  private readonly activeProgress = new Set<string | number>();
  /** `performance.now()` of the last progress begin or end, or 0. */
  lastProgressAt = 0;
  /** How many progress reports ended so far. */
  progressEnded = 0;
  /** Glob patterns the server registered for `workspace/didChangeWatchedFiles`. */
  readonly watchedPatterns: string[] = [];
  private readonly watchListeners = new Set<() => void>();

  private constructor(
    private readonly child: ChildProcess,
    private readonly connection: MessageConnection,
    private readonly options: LspClientOptions,
  ) {
    this.serverId = options.config.id;
    this.pid = child.pid;
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    child.stdin?.on('error', () => undefined);
    child.on('exit', (code, signal) => {
      const finish = (): void => {
        const tail = conciseError(this.stderrTail);
        this.markExited(
          `the ${this.serverId} language server exited (${signal ?? `code ${code}`})${tail ? `; it said: ${tail}` : ''}`,
        );
      };
      // Let the last stderr bytes arrive first (briefly: a grandchild may hold the pipe open).
      const stderr = child.stderr;
      if (!stderr || stderr.readableEnded) return finish();
      const timer = setTimeout(finish, 50);
      stderr.once('end', () => {
        clearTimeout(timer);
        finish();
      });
    });
    connection.onNotification(
      'textDocument/publishDiagnostics',
      (params: PublishDiagnosticsParams) => {
        const count = (this.diagnostics.get(params.uri)?.count ?? 0) + 1;
        this.diagnostics.set(params.uri, {
          items: params.diagnostics,
          receivedAt: performance.now(),
          count,
        });
      },
    );
    connection.onNotification(
      '$/progress',
      (params: { token: string | number; value?: { kind?: string } }) => {
        const kind = params.value?.kind;
        if (kind === 'begin') this.activeProgress.add(params.token);
        if (kind === 'end') {
          this.activeProgress.delete(params.token);
          this.progressEnded += 1;
        }
        this.lastProgressAt = performance.now();
      },
    );
    connection.onRequest((method: string, params: unknown) => {
      if (method === 'client/registerCapability') this.register(params);
      return answerServerRequest(method, params, options.cwd);
    });
    connection.onError(() => undefined);
    connection.listen();
  }

  /** Spawns and initializes a server. */
  static async start(options: LspClientOptions): Promise<LspClient> {
    const { config, command, cwd } = options;
    // typescript-language-server makes a folder (32 hex digits) in the temporary directory for its
    // cancellation files on every start and never removes it: each server gets a private TMPDIR,
    // removed when it exits.
    const tempFolder = mkdtempSync(join(tmpdir(), 'spine-lsp-'));
    const child = spawn(command, config.args ?? [], {
      cwd,
      env: { ...process.env, TMPDIR: tempFolder, ...config.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) => {
        rmSync(tempFolder, { recursive: true, force: true });
        reject(
          new LspFailedError({
            serverId: config.id,
            message: `Cannot start ${command}: ${error.message}; check that it is installed`,
            cause: error,
          }),
        );
      });
    });
    killOnProcessExit(child, tempFolder);
    const connection = createMessageConnection(
      new StreamMessageReader(child.stdout!),
      new StreamMessageWriter(child.stdin!),
    );
    const client = new LspClient(child, connection, options);
    try {
      const rootUri = pathToFileURL(cwd).href;
      const result = await client.request(
        InitializeRequest.type,
        {
          processId: process.pid,
          clientInfo: { name: 'spine-lsp-tools', version: '0.1.0' },
          rootUri,
          rootPath: cwd,
          workspaceFolders: [{ uri: rootUri, name: 'workspace' }],
          capabilities: CLIENT_CAPABILITIES,
          initializationOptions: config.initializationOptions ?? null,
        },
        { signal: options.signal, timeoutMs: options.startupTimeoutMs },
      );
      client.capabilities = result.capabilities;
      await connection.sendNotification(InitializedNotification.method, {});
      return client;
    } catch (error) {
      client.kill();
      if (error instanceof LspAbortedError) throw error;
      throw new LspFailedError({
        serverId: config.id,
        message: `The ${config.id} language server failed to initialize: ${(error as Error).message}`,
        cause: error,
      });
    }
  }

  /** True while the server reports work in progress (loading projects, analysing). */
  get busy(): boolean {
    return this.activeProgress.size > 0;
  }

  /** Calls `listener` whenever the server registers file watchers. */
  onWatchRegistration(listener: () => void): void {
    this.watchListeners.add(listener);
    if (this.watchedPatterns.length > 0) listener();
  }

  private register(params: unknown): void {
    const registrations =
      (params as { registrations?: { method?: string; registerOptions?: unknown }[] })
        ?.registrations ?? [];
    let added = false;
    for (const registration of registrations) {
      if (registration.method !== 'workspace/didChangeWatchedFiles') continue;
      const watchers =
        (registration.registerOptions as { watchers?: { globPattern?: unknown }[] })?.watchers ??
        [];
      for (const watcher of watchers) {
        const pattern = watcher.globPattern;
        if (typeof pattern === 'string') this.watchedPatterns.push(pattern);
        else if (pattern && typeof (pattern as { pattern?: unknown }).pattern === 'string')
          this.watchedPatterns.push((pattern as { pattern: string }).pattern);
        added = true;
      }
    }
    if (added) for (const listener of this.watchListeners) listener();
  }

  /** Why the process exited, once it has. */
  get exitReason(): string | undefined {
    return this.exitReasonText;
  }

  /** True until the process exits. */
  get alive(): boolean {
    return this.exitReasonText === undefined;
  }

  /** Sends a request; rejects on abort, timeout or server exit (cancelling it on the server). */
  request<P, R>(
    type: TypedRequest<P, R>,
    params: P,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<R> {
    const { method } = type;
    if (!this.alive) return Promise.reject(this.exitError(method));
    if (options.signal?.aborted) return Promise.reject(new LspAbortedError({ method }));
    const source = new CancellationTokenSource();
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs;
    return new Promise<R>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (): void => {
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.exitWaiters.delete(onExit);
        source.dispose();
      };
      const onAbort = (): void => {
        source.cancel();
        finish();
        reject(new LspAbortedError({ method }));
      };
      const onExit = (): void => {
        finish();
        reject(this.exitError(method));
      };
      timer = setTimeout(() => {
        source.cancel();
        finish();
        reject(
          new LspFailedError({
            serverId: this.serverId,
            message: `The ${this.serverId} language server did not answer ${method} within ${timeoutMs} ms; try again, or narrow the query`,
          }),
        );
      }, timeoutMs);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.exitWaiters.add(onExit);
      // The connection's types want its own RequestType; ours is structurally the same.
      const sent = this.connection.sendRequest(method, params, source.token) as Promise<R>;
      sent.then(
        (value) => {
          finish();
          resolve(value);
        },
        (error: unknown) => {
          finish();
          reject(
            this.alive
              ? new LspFailedError({
                  serverId: this.serverId,
                  message: `The ${this.serverId} language server could not answer ${method}: ${conciseError((error as Error).message)}`,
                  cause: error,
                })
              : this.exitError(method),
          );
        },
      );
    });
  }

  /** Sends a notification; ignored once the process has exited. */
  notify(method: string, params: unknown): void {
    if (!this.alive) return;
    this.connection.sendNotification(method, params).catch(() => undefined);
  }

  /** Polite shutdown (shutdown request, exit notification), then SIGKILL after 2 s. */
  async shutdown(): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise<void>((resolve) => this.exitWaiters.add(() => resolve()));
    try {
      await this.request<undefined, null>({ method: ShutdownRequest.method }, undefined, {
        timeoutMs: 2000,
      });
      this.notify(ExitNotification.method, undefined);
    } catch {
      // Fall through to the kill below.
    }
    const timer = setTimeout(() => this.kill(), 2000);
    await exited;
    clearTimeout(timer);
  }

  /** Kills the process at once. */
  kill(): void {
    if (this.alive) this.child.kill('SIGKILL');
  }

  /** Calls `listener` once when the process exits (at once if it already has). */
  onExit(listener: () => void): void {
    if (this.alive) this.exitWaiters.add(() => listener());
    else listener();
  }

  private markExited(reason: string): void {
    if (this.exitReasonText !== undefined) return;
    this.exitReasonText = reason;
    this.connection.dispose();
    for (const waiter of [...this.exitWaiters]) waiter(reason);
    this.exitWaiters.clear();
  }

  private exitError(method: string): LspFailedError {
    return new LspFailedError({
      serverId: this.serverId,
      message: `${this.exitReasonText ?? 'the server exited'} during ${method}; it is restarted on the next query`,
    });
  }
}
