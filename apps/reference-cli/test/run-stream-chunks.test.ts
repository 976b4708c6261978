// `spine run` with stdout piped, against the scripted model server on 127.0.0.1: deltas cut
// inside a CR LF and inside a surrogate pair print as the whole text would, and the partial text
// of an attempt whose connection dropped never reaches stdout (only the kept answer does).
import { createScriptedModelServer } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { isolatedEnv, modelArgs, runCli, tempFolder } from './run-cli.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

describe('spine run streaming to a pipe', { timeout: 120_000 }, () => {
  it('joins a CR LF and an emoji cut across deltas', async () => {
    // Deltas of 4 UTF-16 units: 'one\r', '\nab\ud83d', '\ude80 en', 'd\n'.
    const server = await createScriptedModelServer({
      replies: [{ text: 'one\r\nab\ud83d\ude80 end\n', chunkSize: 4 }],
    });
    servers.push(server);
    const { env } = isolatedEnv();
    const result = await runCli(
      ['run', ...modelArgs(server.baseUrl), '--cwd', tempFolder('spine-chunks-'), 'say it'],
      { env },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('one\nab🚀 end\n');
  });

  it('prints only the answer that was kept when the first attempt broke off', async () => {
    const server = await createScriptedModelServer({
      replies: [
        { dropAfterChunks: 2, text: 'Partial answer line one.\n\nSecond paragraph ' },
        { text: 'Kept answer, whole.\n', chunkSize: 5 },
      ],
    });
    servers.push(server);
    const { env } = isolatedEnv();
    const result = await runCli(
      ['run', ...modelArgs(server.baseUrl), '--cwd', tempFolder('spine-retry-'), 'answer'],
      { env },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('retry: attempt 2');
    expect(result.stdout).toBe('Kept answer, whole.\n');
  });
});
