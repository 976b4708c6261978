// `spine run` with stdout piped, against the scripted model server on 127.0.0.1: deltas cut
// inside a CR LF and inside a surrogate pair print as the whole text would, and the partial text
// of an attempt whose connection dropped, or whose stream held a data line that is not JSON,
// never reaches stdout (only the kept answer does; none when every attempt failed).
import { createScriptedModelServer, type ScriptedReply } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliResult, isolatedEnv, modelArgs, runCli, tempFolder } from './run-cli.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** Runs `spine run <task>` (stdout piped) against a scripted server answering `replies`. */
async function runPiped(
  replies: ScriptedReply[],
  task = 'answer',
): Promise<CliResult & { requests: number }> {
  const server = await createScriptedModelServer({ replies });
  servers.push(server);
  const { env } = isolatedEnv();
  const args = ['run', ...modelArgs(server.baseUrl), '--cwd', tempFolder('spine-pipe-'), task];
  const result = await runCli(args, { env });
  return { ...result, requests: server.requests.length };
}

describe('spine run streaming to a pipe', { timeout: 120_000 }, () => {
  it('joins a CR LF and an emoji cut across deltas', async () => {
    // Deltas of 4 UTF-16 units: 'one\r', '\nab\ud83d', '\ude80 en', 'd\n'.
    const result = await runPiped(
      [{ text: 'one\r\nab\ud83d\ude80 end\n', chunkSize: 4 }],
      'say it',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('one\nab🚀 end\n');
  });

  it('prints only the answer that was kept when the first attempt broke off', async () => {
    const result = await runPiped([
      { dropAfterChunks: 2, text: 'Partial answer line one.\n\nSecond paragraph ' },
      { text: 'Kept answer, whole.\n', chunkSize: 5 },
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('retry: attempt 2');
    expect(result.stdout).toBe('Kept answer, whole.\n');
  });

  it('prints nothing on stdout and exits 3 when every attempt broke off', async () => {
    const broken = { dropAfterChunks: 2, text: 'partial answer that never completes ' };
    const result = await runPiped([broken, broken, broken, broken]);
    expect(result.code).toBe(3);
    expect(result.requests).toBe(4);
    expect(result.stderr).toContain('STREAM_BROKEN: gave up after 4 of 4 attempts');
    expect(result.stdout).toBe('');
  });

  it('retries an attempt whose stream held a data line that is not JSON, never printing a hole', async () => {
    const result = await runPiped([
      { text: 'Hello world.', chunkSize: 6, malformedAt: 2 },
      { text: 'Hello world.', chunkSize: 6 },
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/retry: attempt 2 in \d+ ms \(STREAM_BROKEN/);
    expect(result.stdout).toBe('Hello world.\n');
  });

  it('fails with exit 3 when every attempt holds a data line that is not JSON', async () => {
    const bad = { text: 'Hello world.', chunkSize: 6, malformedAt: 2 };
    const result = await runPiped([bad, bad, bad, bad]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('a data line that is not JSON');
    expect(result.stderr).toContain('STREAM_BROKEN: gave up after 4 of 4 attempts');
    expect(result.stdout).toBe('');
  });
});
