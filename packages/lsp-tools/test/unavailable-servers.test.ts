// Servers that are on PATH but do not work: a stub that exits 1 like rustup's proxy, one that
// never answers initialize, and one that crashes on every query. Failures are remembered with
// a back-off, so queries do not start them again and again, and the real cause reaches the
// result without a backtrace.
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createLspManager,
  createLspTools,
  createRustAnalyzerServer,
  LspFailedError,
  type LspManager,
  LspUnavailableError,
} from '../src/index.js';

const servers = fileURLToPath(new URL('./servers/', import.meta.url));
let workspace: string;
let bin: string;
let manager: LspManager | undefined;

beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'spine-lsp-unavailable-'));
  bin = join(workspace, '.bin');
  mkdirSync(bin);
  // The stub is installed under the real server's name, as rustup does.
  copyFileSync(join(servers, 'rustup-stub.mjs'), join(bin, 'rust-analyzer'));
  chmodSync(join(bin, 'rust-analyzer'), 0o755);
  writeFileSync(join(workspace, 'main.rs'), 'fn main() {}\n');
  writeFileSync(join(workspace, 'a.fake'), 'alpha\nbeta\n');
});

afterEach(async () => {
  await manager?.shutdown();
  manager = undefined;
  rmSync(workspace, { recursive: true, force: true });
});

const PATH = () => `${bin}:${process.env.PATH}`;

describe('a server stub that exits 1', () => {
  it('is not available once its --version fails, with the cause and the install hint', async () => {
    manager = createLspManager({
      cwd: workspace,
      servers: [createRustAnalyzerServer()],
      path: PATH(),
    });
    expect(manager.status()[0]).toMatchObject({ id: 'rust', available: true });
    const [status] = await manager.checkServers();
    expect(status).toMatchObject({ id: 'rust', available: false, starts: 0 });
    expect(status!.reason).toContain("Unknown binary 'rust-analyzer'");
    expect(status!.reason).toContain('rustup component add rust-analyzer');
    expect(status!.reason).not.toMatch(/0x55d0c0ffee|stack backtrace/);
    const definition = createLspTools(manager)[0]!;
    const output = await definition.execute(
      { path: 'main.rs', line: 1, column: 4 },
      { callId: 'c', signal: new AbortController().signal, cwd: workspace, sandbox: 'read-only' },
    );
    expect(output.isError).toBe(true);
    expect(output.content).toContain("Unknown binary 'rust-analyzer'");
    expect(output.content).toContain('`rustup component add rust-analyzer`');
    expect(manager.starts).toBe(0);
  });

  it('starts once for six queries without a version check, and reports the real cause each time', async () => {
    manager = createLspManager({
      cwd: workspace,
      servers: [createRustAnalyzerServer()],
      path: PATH(),
    });
    const errors: unknown[] = [];
    for (let query = 0; query < 6; query += 1) {
      errors.push(
        await manager
          .definition('main.rs', { line: 1, column: 4 })
          .catch((error: unknown) => error),
      );
    }
    expect(manager.starts).toBe(1);
    expect(errors[0]).toBeInstanceOf(LspFailedError);
    for (const error of errors.slice(1)) expect(error).toBeInstanceOf(LspUnavailableError);
    for (const error of errors) {
      expect((error as Error).message).toContain("Unknown binary 'rust-analyzer'");
      expect((error as Error).message).not.toMatch(/0x55d0c0ffee|\n/);
    }
    expect((errors[5] as Error).message).toContain('rustup component add rust-analyzer');
    expect(manager.status()[0]).toMatchObject({ state: 'failed', available: false });
  });
});

describe('servers that hang or crash', () => {
  it('gives up on a server that never answers initialize, kills it and waits before the next try', async () => {
    manager = createLspManager({
      cwd: workspace,
      servers: [
        {
          id: 'fake',
          languages: { '.fake': 'fake' },
          command: process.execPath,
          args: [join(servers, 'scripted-server.mjs'), '--hang-on=initialize'],
        },
      ],
      startupTimeoutMs: 500,
      analysisTimeoutMs: 300,
    });
    const error = await manager
      .definition('a.fake', { line: 1, column: 1 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LspFailedError);
    expect((error as Error).message).toContain('did not answer initialize within 500 ms');
    expect(manager.processCount).toBe(0);
    await expect(manager.definition('a.fake', { line: 1, column: 1 })).rejects.toBeInstanceOf(
      LspUnavailableError,
    );
    expect(manager.starts).toBe(1);
  });

  it('stops restarting a server that crashes on every query after three crashes', async () => {
    manager = createLspManager({
      cwd: workspace,
      servers: [
        {
          id: 'fake',
          languages: { '.fake': 'fake' },
          command: process.execPath,
          args: [join(servers, 'scripted-server.mjs'), '--crash-on=textDocument/references'],
        },
      ],
      analysisTimeoutMs: 300,
    });
    const outcomes: unknown[] = [];
    for (let query = 0; query < 5; query += 1) {
      outcomes.push(
        await manager
          .references('a.fake', { line: 1, column: 1 })
          .catch((caught: unknown) => caught),
      );
    }
    expect(outcomes[0]).toBeInstanceOf(LspFailedError);
    expect((outcomes[0] as Error).message).toContain('crashing on textDocument/references');
    expect(outcomes.at(-1)).toBeInstanceOf(LspUnavailableError);
    // Each query restarts at most once; after three crashes no further process is started.
    expect(manager.starts).toBeLessThanOrEqual(4);
    const starts = manager.starts;
    await manager.references('a.fake', { line: 1, column: 1 }).catch(() => undefined);
    expect(manager.starts).toBe(starts);
  });

  it('turns a server exception with a stack trace into a short message', async () => {
    manager = createLspManager({
      cwd: workspace,
      servers: [
        {
          id: 'fake',
          languages: { '.fake': 'fake' },
          command: process.execPath,
          args: [join(servers, 'scripted-server.mjs'), '--error-on=textDocument/references'],
        },
      ],
      analysisTimeoutMs: 300,
    });
    const tool = createLspTools(manager)[1]!;
    const output = await tool.execute(
      { path: 'a.fake', line: 1, column: 1 },
      { callId: 'c', signal: new AbortController().signal, cwd: workspace, sandbox: 'read-only' },
    );
    expect(output.isError).toBe(true);
    expect(output.content).toBe(
      'The fake language server could not answer textDocument/references: Debug Failure. False expression: position out of range',
    );
  });
});
