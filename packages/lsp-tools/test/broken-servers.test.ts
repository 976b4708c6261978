import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SpineError } from '@spine/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LanguageServerConfig, LspManager, LspManagerOptions } from '../src/index.js';
import {
  createLspManager,
  createLspTools,
  defaultServers,
  LspAbortedError,
  LspFailedError,
  LspUnavailableError,
} from '../src/index.js';

const servers = fileURLToPath(new URL('./servers/', import.meta.url));
let workspace: string;
let logFile: string;
let manager: LspManager | undefined;

function scripted(...flags: string[]): LanguageServerConfig {
  return {
    id: 'fake',
    languages: { '.fake': 'fake' },
    command: process.execPath,
    args: [join(servers, 'scripted-server.mjs'), `--log=${logFile}`, ...flags],
  };
}

function start(config: LanguageServerConfig, options: Partial<LspManagerOptions> = {}): LspManager {
  // These servers report no analysis: a short bound keeps the first workspace query quick.
  manager = createLspManager({
    cwd: workspace,
    servers: [config],
    analysisTimeoutMs: 300,
    ...options,
  });
  return manager;
}

/** The server's log lines so far; a line it is still writing (no newline yet) is left out. */
function logged(): { method?: string; of?: string; version?: number; answered?: unknown }[] {
  if (!existsSync(logFile)) return [];
  // The last piece after the final newline is '' or a line still being written.
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line));
}

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'spine-lsp-broken-'));
  logFile = join(workspace, 'server.log');
  writeFileSync(join(workspace, 'a.fake'), 'alpha\nbeta\n');
});

afterEach(async () => {
  await manager?.shutdown();
  manager = undefined;
  rmSync(workspace, { recursive: true, force: true });
});

describe('servers that misbehave', () => {
  it('reports a server that crashes on initialize with its stderr, and tries again only after a back-off', async () => {
    const lsp = start(
      {
        id: 'fake',
        languages: { '.fake': 'fake' },
        command: process.execPath,
        args: [join(servers, 'crash-on-initialize.mjs')],
        installHint: 'npm i fake-server',
      },
      { startRetryMs: 1500 },
    );
    const error = await lsp
      .definition('a.fake', { line: 1, column: 1 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LspFailedError);
    expect((error as LspFailedError).code).toBe('LSP_FAILED');
    expect((error as Error).message).toContain('failed to initialize');
    expect((error as Error).message).toContain('boom: this server refuses to initialize');
    expect(lsp.status()[0]).toMatchObject({
      id: 'fake',
      state: 'failed',
      starts: 1,
      available: false,
    });
    expect(lsp.status()[0]?.reason).toContain('boom: this server refuses to initialize');
    // Within the back-off the remembered cause and the install hint come back, nothing starts.
    const remembered = await lsp
      .definition('a.fake', { line: 1, column: 1 })
      .catch((caught: unknown) => caught);
    expect(remembered).toBeInstanceOf(LspUnavailableError);
    expect((remembered as Error).message).toContain('boom: this server refuses to initialize');
    expect((remembered as Error).message).toContain('`npm i fake-server`');
    expect((remembered as Error).message).not.toMatch(/\n\s+at /);
    expect(lsp.starts).toBe(1);
    // After the back-off it is tried again, and the next wait is twice as long.
    await new Promise((resolve) => setTimeout(resolve, 1600));
    await expect(lsp.definition('a.fake', { line: 1, column: 1 })).rejects.toBeInstanceOf(
      LspFailedError,
    );
    expect(lsp.starts).toBe(2);
    expect(lsp.status()[0]?.reason).toMatch(/2 failed starts; next try in [23] s/);
    expect(lsp.processCount).toBe(0);
  });

  it('restarts a server that crashes mid-session and answers the query on the new process', async () => {
    const once = join(workspace, 'crashed-once');
    const lsp = start(scripted('--crash-on=textDocument/definition', `--once-file=${once}`));
    const locations = await lsp.definition('a.fake', { line: 2, column: 1 });
    expect(locations).toEqual([
      { path: join(workspace, 'a.fake'), line: 1, column: 1, endLine: 1, endColumn: 2 },
    ]);
    expect(existsSync(once)).toBe(true);
    expect(lsp.starts).toBe(2);
    expect(lsp.processCount).toBe(1);
    // The restarted server got the document opened again before the query.
    expect(logged().filter((entry) => entry.method === 'textDocument/didOpen')).toHaveLength(2);
    expect(lsp.status()[0]).toMatchObject({ state: 'running', starts: 2 });
    expect(lsp.status()[0]?.lastError).toContain('exited (code 7)');
  });

  it('cancels a pending request on the server when the AbortSignal fires', async () => {
    const lsp = start(scripted('--hang-on=textDocument/references'));
    const controller = new AbortController();
    const outcome = lsp
      .references('a.fake', { line: 1, column: 1 }, { signal: controller.signal })
      .catch((caught: unknown) => caught);
    await until(() => logged().some((entry) => entry.method === 'textDocument/references'));
    controller.abort();
    const error = await outcome;
    expect(error).toBeInstanceOf(LspAbortedError);
    expect(SpineError.isInstance(error) && error.code).toBe('ABORTED');
    await until(() =>
      logged().some(
        (entry) => entry.method === 'cancelled' && entry.of === 'textDocument/references',
      ),
    );
    // The server stays up and keeps answering.
    await expect(lsp.definition('a.fake', { line: 1, column: 1 })).resolves.toHaveLength(1);
    expect(lsp.starts).toBe(1);
  });

  it('rejects at once when the signal is already aborted, without starting anything new', async () => {
    const lsp = start(scripted());
    await lsp.definition('a.fake', { line: 1, column: 1 });
    const controller = new AbortController();
    controller.abort();
    await expect(
      lsp.definition('a.fake', { line: 1, column: 1 }, { signal: controller.signal }),
    ).rejects.toBeInstanceOf(LspAbortedError);
    expect(lsp.starts).toBe(1);
  });

  it('a query cancelled during the cold start leaves the start to finish for the next query', async () => {
    const lsp = start(scripted());
    const controller = new AbortController();
    const outcome = lsp
      .definition('a.fake', { line: 1, column: 1 }, { signal: controller.signal })
      .catch((caught: unknown) => caught);
    controller.abort();
    expect(await outcome).toBeInstanceOf(LspAbortedError);
    await expect(lsp.definition('a.fake', { line: 1, column: 1 })).resolves.toHaveLength(1);
    expect(lsp.starts).toBe(1);
  });

  it('times out a request the server never answers and cancels it there', async () => {
    const lsp = start(scripted('--hang-on=textDocument/definition'), { requestTimeoutMs: 300 });
    const error = await lsp
      .definition('a.fake', { line: 1, column: 1 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LspFailedError);
    expect((error as Error).message).toContain(
      'did not answer textDocument/definition within 300 ms',
    );
    await until(() => logged().some((entry) => entry.method === 'cancelled'));
  });

  it('answers the requests a server sends to its client', async () => {
    const lsp = start(scripted());
    await lsp.definition('a.fake', { line: 1, column: 1 });
    await until(() => logged().some((entry) => entry.answered !== undefined));
    expect(logged().find((entry) => entry.answered)?.answered).toEqual({
      configuration: [{}, {}],
      progress: null,
    });
  });

  it('re-sends a document that changed on disk before the next query and records it as changed', async () => {
    const lsp = start(scripted());
    await lsp.definition('a.fake', { line: 1, column: 1 });
    writeFileSync(join(workspace, 'a.fake'), 'alpha\nbeta\ngamma\n');
    await lsp.definition('a.fake', { line: 1, column: 1 });
    await lsp.definition('a.fake', { line: 1, column: 1 });
    const changes = logged().filter((entry) => entry.method === 'textDocument/didChange');
    expect(changes).toEqual([{ method: 'textDocument/didChange', version: 2 }]);
    expect(lsp.changedFiles()).toEqual([join(workspace, 'a.fake')]);
  });

  it('stops an idle server and starts a new one on the next query', async () => {
    const lsp = start(scripted(), { idleTimeoutMs: 150 });
    await lsp.definition('a.fake', { line: 1, column: 1 });
    expect(lsp.processCount).toBe(1);
    await until(() => lsp.processCount === 0);
    expect(logged().some((entry) => entry.method === 'shutdown')).toBe(true);
    expect(lsp.status()[0]?.state).toBe('stopped');
    await lsp.definition('a.fake', { line: 1, column: 1 });
    expect(lsp.starts).toBe(2);
  });

  it('shuts every server down and refuses queries afterwards', async () => {
    const lsp = start(scripted());
    await lsp.definition('a.fake', { line: 1, column: 1 });
    await lsp.shutdown();
    expect(lsp.processCount).toBe(0);
    expect(logged().map((entry) => entry.method)).toEqual(
      expect.arrayContaining(['shutdown', 'exit']),
    );
    await expect(lsp.definition('a.fake', { line: 1, column: 1 })).rejects.toThrow(/shut down/);
  });
});

describe('diagnostics and symbols from small servers', () => {
  const problem = {
    location: { path: '', line: 2, column: 1, endLine: 2, endColumn: 5 },
    severity: 'error',
    message: 'fake problem',
    code: 'F1',
    source: 'fake',
  };

  it('asks a pull-diagnostics server directly', async () => {
    const lsp = start(scripted('--pull-diagnostics'));
    const file = join(workspace, 'a.fake');
    expect(await lsp.diagnostics('a.fake')).toEqual([
      { ...problem, location: { ...problem.location, path: file } },
    ]);
    expect(logged().some((entry) => entry.method === 'textDocument/diagnostic')).toBe(true);
  });

  it('waits for pushed diagnostics to settle instead of taking the first, empty publish', async () => {
    const lsp = start(scripted('--push-diagnostics'), { diagnosticsQuietMs: 300 });
    const file = join(workspace, 'a.fake');
    expect(await lsp.diagnostics('a.fake')).toEqual([
      { ...problem, location: { ...problem.location, path: file } },
    ]);
    const tool = createLspTools(lsp).find((each) => each.spec.name === 'lsp_diagnostics')!;
    const output = await tool.execute(
      { path: 'a.fake' },
      { callId: 'c1', signal: new AbortController().signal, cwd: workspace, sandbox: 'read-only' },
    );
    expect(output.content).toBe('a.fake: 1 error\na.fake:2:1 error F1: fake problem\n    > beta');
  });

  it('keeps the answers of healthy servers when another server fails a workspace query', async () => {
    writeFileSync(join(workspace, 'b.crash'), 'x\n');
    const crashing: LanguageServerConfig = {
      id: 'crashing',
      languages: { '.crash': 'crash' },
      command: process.execPath,
      args: [join(servers, 'crash-on-initialize.mjs')],
    };
    manager = createLspManager({
      cwd: workspace,
      servers: [scripted('--symbols'), crashing],
      analysisTimeoutMs: 300,
    });
    const symbols = await manager.workspaceSymbols('alp');
    expect(symbols).toEqual([
      {
        name: 'alpha',
        kind: 'class',
        location: { path: join(workspace, 'a.fake'), line: 1, column: 1, endLine: 1, endColumn: 6 },
      },
    ]);
    expect(manager.status().map((each) => each.state)).toEqual(['running', 'failed']);
    await expect(manager.workspaceSymbols('alp', { language: 'crashing' })).rejects.toBeInstanceOf(
      LspUnavailableError,
    );
  });
});

describe('languages without a server', () => {
  it('gives a clear message for an extension no server is configured for', async () => {
    writeFileSync(join(workspace, 'script.rb'), 'puts 1\n');
    const lsp = start(scripted());
    await expect(lsp.definition('script.rb', { line: 1, column: 1 })).rejects.toThrow(
      'No language server is configured for .rb (configured: fake); use grep or read for these files instead',
    );
    const definition = createLspTools(lsp).find((tool) => tool.spec.name === 'lsp_definition')!;
    const output = await definition.execute(
      { path: 'script.rb', line: 1, column: 1 },
      { callId: 'c1', signal: new AbortController().signal, cwd: workspace, sandbox: 'read-only' },
    );
    expect(output.isError).toBe(true);
    expect(output.content).toContain('No language server is configured for .rb');
    expect(lsp.starts).toBe(0);
  });

  it('names the missing command and how to install it when the server is not on PATH', async () => {
    writeFileSync(join(workspace, 'tool.py'), 'x = 1\n');
    manager = createLspManager({ cwd: workspace, servers: defaultServers(), path: '' });
    const error = await manager
      .definition('tool.py', { line: 1, column: 1 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LspUnavailableError);
    expect((error as Error).message).toBe(
      'The python language server (pyright-langserver) is not installed or not on PATH; install it with `npm i -g pyright`, or use grep and read instead',
    );
    const status = manager.status();
    expect(status.map((each) => each.id)).toEqual(['typescript', 'python', 'go', 'rust', 'c']);
    // typescript-language-server comes from the package's own dependency, not from PATH.
    expect(status[0]).toMatchObject({ available: true, command: process.execPath });
    expect(
      status.slice(1).every((each) => !each.available && each.reason?.includes('not installed')),
    ).toBe(true);
    expect(manager.starts).toBe(0);
  });
});
