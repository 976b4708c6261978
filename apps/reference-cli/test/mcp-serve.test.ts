import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insideSpine, processesWith, serveWorkspace, until } from './mcp-serve-helpers.js';
import { BIN, isolatedEnv, runCli } from './run-cli.js';

// `spine mcp serve` over stdio, driven by the official SDK client spawning the real CLI (from
// sources, so start-up under load is slow: generous timeouts). Commands run in bubblewrap.

type Answer = ElicitResult['action'];
type CallResult = Awaited<ReturnType<Client['callTool']>>;

const text = (result: CallResult): string =>
  (result.content as { type: string; text: string }[]).map((part) => part.text).join('');

describe('spine mcp serve over stdio', { timeout: 180_000 }, () => {
  const cwd = serveWorkspace();
  const { env, sessionDir } = isolatedEnv();
  let answer: Answer = 'accept';
  const asked: string[] = [];
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push((request.params as { message: string }).message);
    return answer === 'accept' ? { action: 'accept', content: {} } : { action: answer };
  });
  let stderr = '';

  beforeAll(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', 'serve', '--cwd', cwd, '--approval', 'ask'],
      env: env as Record<string, string>,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    await client.connect(transport, { timeout: 150_000 });
  }, 180_000);
  afterAll(async () => {
    await client.close();
  });

  it('lists the servable tools with honest annotations', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ['read', 'write', 'edit', 'bash', 'grep', 'glob', 'list', 'web_fetch'])
      expect(byName.has(name), name).toBe(true);
    for (const name of ['task', 'recall_history', 'remember', 'web_search'])
      expect(byName.has(name), name).toBe(false);
    expect(byName.get('read')?.annotations).toMatchObject({ readOnlyHint: true });
    // Tools the harness adds: none reaches the network, job_output only reads.
    expect(byName.get('job_output')?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      openWorldHint: false,
    });
    expect(byName.get('job_kill')?.annotations).toMatchObject({
      readOnlyHint: false,
      openWorldHint: false,
    });
    expect(byName.get('update_plan')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      openWorldHint: false,
    });
    expect(byName.get('lsp_definition')?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('write')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: false,
    });
    // The shell network is off by default: commands reach no open world.
    expect(byName.get('bash')?.annotations).toMatchObject({
      destructiveHint: true,
      openWorldHint: false,
    });
    expect(byName.get('web_fetch')?.annotations).toMatchObject({
      readOnlyHint: true,
      openWorldHint: true,
    });
  });

  it('calls the file tools: read, grep, glob, list without asking; write and edit after accept', async () => {
    answer = 'accept';
    asked.length = 0;
    expect(text(await client.callTool({ name: 'read', arguments: { path: 'notes.txt' } }))).toMatch(
      /1\talpha/,
    );
    expect(
      text(await client.callTool({ name: 'grep', arguments: { pattern: 'gam+a' } })),
    ).toContain('notes.txt');
    expect(
      text(await client.callTool({ name: 'glob', arguments: { pattern: '**/*.ts' } })),
    ).toContain('src/greet.ts');
    expect(text(await client.callTool({ name: 'list', arguments: {} }))).toContain('notes.txt');
    expect(asked).toEqual([]);
    const wrote = await client.callTool({
      name: 'write',
      arguments: { path: 'new.txt', content: 'one\n' },
    });
    expect(wrote.isError).toBe(false);
    const edited = await client.callTool({
      name: 'edit',
      arguments: { path: 'new.txt', edits: [{ oldText: 'one', newText: 'two' }] },
    });
    expect(text(edited)).not.toMatch(/denied|Invalid/);
    expect(readFileSync(join(cwd, 'new.txt'), 'utf8')).toBe('two\n');
    expect(asked).toHaveLength(2);
  });

  it('runs bash in the sandbox after accept, and not at all after decline or cancel', async () => {
    answer = 'accept';
    const ran = await client.callTool({
      name: 'bash',
      arguments: { command: 'echo ran > ran.txt; cat notes.txt | wc -l' },
    });
    expect(ran.isError).toBe(false);
    expect(text(ran)).toContain('3');
    for (const refusal of ['decline', 'cancel'] as const) {
      answer = refusal;
      const result = await client.callTool({
        name: 'bash',
        arguments: { command: `touch ${refusal}.txt` },
      });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^Tool call denied \(user\)/);
    }
    expect(readdirSync(cwd)).toContain('ran.txt');
    expect(readdirSync(cwd)).not.toContain('decline.txt');
    expect(readdirSync(cwd)).not.toContain('cancel.txt');
  });

  it('refuses path escapes, symlink escapes and loopback fetches exactly as inside Spine', async () => {
    // web_fetch reaches the network: the ask policy puts it to the person first.
    answer = 'accept';
    const calls: [string, Record<string, unknown>][] = [
      ['read', { path: '../../etc/passwd' }],
      ['read', { path: 'outside/passwd' }],
      ['write', { path: '/etc/spine-test', content: 'x' }],
      ['web_fetch', { url: 'http://127.0.0.1:9/' }],
      ['web_fetch', { url: 'https://127.0.0.1:9/' }],
      ['web_fetch', { url: 'https://[::1]/' }],
      ['web_fetch', { url: 'https://169.254.169.254/latest/meta-data' }],
      ['web_fetch', { url: 'https://0x7f000001/' }],
      ['web_fetch', { url: 'https://localhost/' }],
    ];
    for (const [name, args] of calls) {
      const served = await client.callTool({ name, arguments: args });
      const inside = await insideSpine(cwd, name, args);
      expect(served.isError, name).toBe(true);
      expect(text(served), JSON.stringify(args)).toBe(inside);
      if (name === 'web_fetch') expect(inside).toContain('URL_REFUSED');
    }
  });

  it('finds a symbol with the language-server tools', async () => {
    const result = await client.callTool(
      { name: 'lsp_symbols', arguments: { query: 'greetVisitor' } },
      undefined,
      { timeout: 150_000 },
    );
    expect(text(result)).toContain('greetVisitor');
  });

  it('kills the command’s process group when the request is cancelled', async () => {
    answer = 'accept';
    const marker = `${2000 + Math.floor(Math.random() * 7000)}.8765`;
    const abort = new AbortController();
    const call = client.callTool(
      { name: 'bash', arguments: { command: `sleep ${marker} & sleep ${marker}; wait` } },
      undefined,
      { signal: abort.signal },
    );
    call.catch(() => {});
    await until(
      () => processesWith(`sleep\0${marker}`).length >= 2,
      'the commands to start',
      60_000,
    );
    abort.abort('cancelled by the test');
    await expect(call).rejects.toThrow();
    await until(() => processesWith(`sleep\0${marker}`).length === 0, 'the process group to end');
  });

  it('records every call in a session log that spine verify and show accept', async () => {
    // A call after the cancel proves the server is still serving, and orders the log.
    expect(text(await client.callTool({ name: 'read', arguments: { path: 'new.txt' } }))).toContain(
      'two',
    );
    const file = readdirSync(sessionDir).find((name) => name.endsWith('.jsonl'));
    if (!file) throw new Error(`no session in ${sessionDir}; stderr: ${stderr}`);
    const id = file.replace(/\.jsonl$/, '');
    expect(stderr).toContain(`session ${id}`);
    const log = readFileSync(join(sessionDir, file), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; body: Record<string, unknown> });
    const results = log.filter((event) => event.type === 'tool/result');
    const started = log.filter((event) => event.type === 'tool/started');
    expect(results.length).toBeGreaterThanOrEqual(16);
    // Every started call has its result, the cancelled one included.
    for (const event of started)
      expect(results.some((result) => result.body.toolCallId === event.body.toolCallId)).toBe(true);
    const denied = log.filter(
      (event) => event.type === 'tool/approval' && event.body.decision === 'deny',
    );
    expect(denied.map((event) => event.body.by)).toEqual(['user', 'user']);
    const verified = await runCli(['verify', id], { env });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    const shown = await runCli(['show', id], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('spine mcp serve');
    expect(shown.stdout).toContain('denied bash');
    const replayed = await runCli(['replay', id, '--verify'], { env });
    expect(replayed.code, replayed.stdout + replayed.stderr).toBe(0);
  });

  it('ends its session when the client closes: lock released, index written', async () => {
    const file = readdirSync(sessionDir).find((name) => name.endsWith('.jsonl'));
    if (!file) throw new Error('no session');
    const id = file.replace(/\.jsonl$/, '');
    const lock = join(sessionDir, `${file}.lock`);
    const index = join(sessionDir, '.spine-index');
    expect(existsSync(lock)).toBe(true);
    await client.close();
    await until(() => !existsSync(lock), 'the lock to go', 60_000);
    await until(
      () => existsSync(index) && readdirSync(index).some((name) => name.includes(id)),
      'the session index entry',
      60_000,
    );
  });
});
