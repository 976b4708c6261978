// End to end through the real `spine` binary: the model answers with one `write` whose content
// is 10 MiB of one character, so its own tool call cannot fit the window of the next request.
// Counting it must not stall, the request must not be sent, and the turn ends with exit 3.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEvent } from '@spine/protocol';
import { createScriptedModelServer } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const WINDOW = 128_000;

describe('a tool call too big for the window', { timeout: 300_000 }, () => {
  it('is not sent: the turn ends with exit 3 saying what does not fit, and verify passes', async () => {
    const content = 'A'.repeat(10 * 1024 * 1024);
    const server = await createScriptedModelServer({
      replies: [
        {
          toolCalls: [
            { id: 'big', name: 'write', arguments: JSON.stringify({ path: 'big.txt', content }) },
          ],
        },
        { text: 'done' },
      ],
    });
    servers.push(server);
    const { env, root, sessionDir } = isolatedEnv();
    mkdirSync(join(root, 'config'), { recursive: true });
    writeFileSync(join(root, 'config', 'config.json'), JSON.stringify({ contextWindow: WINDOW }));
    const cwd = exampleWorkspace('spine-oversized-');
    const run = await runCli(
      [
        'run',
        ...modelArgs(server.baseUrl),
        '--cwd',
        cwd,
        '--approval',
        'never-ask',
        '--json',
        'write a big file',
      ],
      { env, timeoutMs: 240_000 },
    );
    expect(run.stderr).not.toContain('internal error');
    expect(run.code).toBe(3);
    // No request over the window reached the server; the agent's own request was sent once (the
    // others are the summarizer's, for the compactions that tried to make room).
    for (const request of server.requests) expect(request.raw.length).toBeLessThan(WINDOW * 4);
    const agentRequests = server.requests.filter((request) =>
      request.body.messages[0].content.startsWith('You are Spine'),
    );
    expect(agentRequests).toHaveLength(1);
    expect(run.stderr).toContain('The request does not fit the model. What you can do:');
    expect(run.stderr).toContain('start a new session');

    const header = JSON.parse(run.stdout.split('\n')[0] ?? '{}') as SessionEvent;
    const id = (header.body as { sessionId: string }).sessionId;
    const events = readFileSync(join(sessionDir, `${id}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as SessionEvent);
    const end = events.at(-1);
    expect(end?.type).toBe('turn/end');
    expect(end?.body).toMatchObject({ reason: 'error', error: { code: 'CONTEXT_OVERFLOW' } });
    expect(events.filter((event) => event.type === 'request/header')).toHaveLength(1);
    const message = (end?.body as { error?: { message?: string } } | undefined)?.error?.message;
    expect(message).toMatch(/does not fit the model's context window/);
    expect(message).toMatch(/one message \(event #\d+\) takes about \d+ tokens/);

    const verified = await runCli(['verify', id], { env });
    expect(verified.code).toBe(0);
    const replayed = await runCli(['replay', id, '--verify'], { env });
    expect(replayed.code).toBe(0);

    // Resuming with a new task does not send it either: the turn ends the same way.
    server.push({ text: 'resumed' }, { text: 'resumed' }, { text: 'resumed' });
    const resumed = await runCli(['resume', id, ...modelArgs(server.baseUrl), '--json', 'go on'], {
      env,
      timeoutMs: 240_000,
    });
    expect(resumed.code).toBe(3);
    expect(resumed.stderr).toContain('The request does not fit the model. What you can do:');
    for (const request of server.requests) expect(request.raw.length).toBeLessThan(WINDOW * 4);
  });
});
