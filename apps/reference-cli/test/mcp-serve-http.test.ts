import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { processesWith, serveWorkspace, until } from './mcp-serve-helpers.js';
import { BIN, isolatedEnv, runCli } from './run-cli.js';

// `spine mcp serve --http`: Streamable HTTP on 127.0.0.1 with a bearer token, driven by the
// official SDK client; a client without elicitation gets the policy's denial.

interface Served {
  child: ChildProcess;
  url: string;
  token: string;
  session: string;
  exited: Promise<number | null>;
}

async function serveHttp(args: string[], env: NodeJS.ProcessEnv): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'mcp', 'serve', '--http', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const end = stdout.indexOf('\n');
      if (end >= 0) resolve(stdout.slice(0, end));
    });
    void exited.then((code) => reject(new Error(`exited ${code} before serving: ${stderr}`)));
  });
  return {
    child,
    exited,
    ...(JSON.parse(line) as { url: string; token: string; session: string }),
  };
}

function connectTo(served: Served, token: string | undefined): Promise<Client> {
  const client = new Client({ name: 'plain-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(served.url), {
    requestInit: token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } },
  });
  return client.connect(transport, { timeout: 60_000 }).then(() => client);
}

describe('spine mcp serve --http', { timeout: 180_000 }, () => {
  const cwd = serveWorkspace();
  const { env, sessionDir } = isolatedEnv();
  const running: Served[] = [];
  afterAll(() => {
    for (const served of running) served.child.kill('SIGKILL');
  });

  it('serves with the token only, denies by the policy without elicitation, and records the run', async () => {
    const served = await serveHttp(['--cwd', cwd], env);
    running.push(served);
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(served.token).toMatch(/^[0-9a-f]{64}$/);
    await expect(connectTo(served, undefined)).rejects.toThrow();
    await expect(connectTo(served, 'not-the-token')).rejects.toThrow();

    const client = await connectTo(served, served.token);
    const read = await client.callTool({ name: 'read', arguments: { path: 'notes.txt' } });
    expect(JSON.stringify(read.content)).toContain('alpha');
    const bash = await client.callTool({ name: 'bash', arguments: { command: 'touch x' } });
    expect(bash.isError).toBe(true);
    expect((bash.content as { text: string }[])[0]?.text).toMatch(
      /^Tool call denied \(policy:ask\): needs approval \(.*\), and nobody can be asked/,
    );
    await client.close();

    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    const log = readFileSync(join(sessionDir, `${served.session}.jsonl`), 'utf8');
    expect(log).toContain('"by":"policy:ask"');
    const verified = await runCli(['verify', served.session], { env });
    expect(verified.code, verified.stdout).toBe(0);
  });

  it('stopped with a command running: kills its process group and records its result', async () => {
    const served = await serveHttp(['--cwd', cwd, '--approval', 'never-ask'], env);
    running.push(served);
    const client = await connectTo(served, served.token);
    const marker = `${3000 + Math.floor(Math.random() * 6000)}.2468`;
    const call = client.callTool({
      name: 'bash',
      arguments: { command: `sleep ${marker} & sleep ${marker}; wait` },
    });
    call.catch(() => {});
    await until(() => processesWith(`sleep\0${marker}`).length >= 2, 'the commands', 60_000);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    expect(processesWith(`sleep\0${marker}`)).toEqual([]);
    const events = readFileSync(join(sessionDir, `${served.session}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; body: { toolName?: string } });
    const started = events.filter((event) => event.type === 'tool/started');
    const results = events.filter((event) => event.type === 'tool/result');
    expect(started.map((event) => event.body.toolName)).toEqual(['bash']);
    expect(results).toHaveLength(1);
    expect(results[0]?.body).toMatchObject({ toolName: 'bash', isError: true });
    expect((await runCli(['verify', served.session], { env })).code).toBe(0);
  });

  it('refuses to listen on an address that is not loopback (exit 2)', async () => {
    const result = await runCli(['mcp', 'serve', '--http', '--host', '0.0.0.0', '--cwd', cwd], {
      env,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('only loopback (127.0.0.1 or ::1) is allowed');
  });

  it('refuses unknown tool names in --tools with the ones there are (exit 2)', async () => {
    const result = await runCli(['mcp', 'serve', '--tools', 'read,nope', '--cwd', cwd], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no tool named "nope" can be served; choose from');
    expect(result.stdout).toBe('');
  });
});
