import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_SESSION_ID } from '../scripts/example-task.js';
import { APP_DIR, isolatedEnv, runCli, tempFolder } from './run-cli.js';

/** A copy of the recorded example sessions, and its log file. */
function copy(): { sessions: string; file: string } {
  const sessions = join(tempFolder('spine-replay-request-'), 'sessions');
  cpSync(join(APP_DIR, 'examples', 'sessions'), sessions, { recursive: true });
  return { sessions, file: join(sessions, `${EXAMPLE_SESSION_ID}.jsonl`) };
}

/** The recorded `prompt/system` event of the example log, as written. */
function promptLine(file: string): { line: string; hash: string; text: string } {
  const line = readFileSync(file, 'utf8')
    .split('\n')
    .find((entry) => entry.includes('"type":"prompt/system"'));
  if (!line) throw new Error('the example log has no prompt/system event');
  const { body } = JSON.parse(line) as { body: { hash: string; text: string } };
  return { line, ...body };
}

describe('spine replay --request N: the request replay rebuilt, or why it cannot be', {
  timeout: 120_000,
}, () => {
  it('prints the request replay rebuilt, with the recorded system prompt and its wire body', async () => {
    const { env } = isolatedEnv();
    const { sessions, file } = copy();
    const { text } = promptLine(file);
    const result = await runCli(
      ['replay', EXAMPLE_SESSION_ID, '--request', '1', '--json', '--session-dir', sessions],
      { env },
    );
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as {
      ok: boolean;
      request: { system: string; messages: unknown[] };
      wire: string;
      wireHash: string;
    };
    expect(printed.ok).toBe(true);
    expect(printed.request.system).toBe(text);
    expect(printed.request.messages.length).toBeGreaterThan(0);
    expect(JSON.parse(printed.wire).messages[0]).toEqual({ role: 'system', content: text });
  });

  it('says the system prompt was not recorded instead of printing a request with an empty one', async () => {
    const { env } = isolatedEnv();
    const { sessions, file } = copy();
    const { line, hash } = promptLine(file);
    const other = `sha256:${'0'.repeat(64)}`;
    const log = readFileSync(file, 'utf8');
    writeFileSync(file, log.replace(line, line.replace(hash, other)));
    const result = await runCli(
      ['replay', EXAMPLE_SESSION_ID, '--request', '1', '--session-dir', sessions],
      { env },
    );
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`refers to the system prompt ${hash}, which is not in the log`);
  });

  it('says the recorded system prompt no longer matches its hash', async () => {
    const { env } = isolatedEnv();
    const { sessions, file } = copy();
    const { line, hash } = promptLine(file);
    const log = readFileSync(file, 'utf8');
    writeFileSync(file, log.replace(line, line.replace('careful coding agent', 'careless agent')));
    const result = await runCli(
      ['replay', EXAMPLE_SESSION_ID, '--request', '2', '--json', '--session-dir', sessions],
      { env },
    );
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/request 2 \(request\/header #\d+\) cannot be rebuilt/);
    expect(result.stderr).toContain(`system prompt does not match the record (expected ${hash}`);
  });
});
