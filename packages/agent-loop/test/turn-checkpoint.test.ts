// The turn boundary (issue 41's review: the loop never marked it). After `turn/end` the agent
// calls `session.checkpoint()`: a JSONL store with the default `per-turn` fsync policy writes and
// syncs the turn's events there instead of leaving them to a timer, and a due automatic snapshot
// is written while the session stays open (before, only `close()` wrote one).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatibleModel } from '@spine/llm';
import { createJsonlStore, Session } from '@spine/session-log';
import { createScriptedModelServer, type ScriptedModelServer } from '@spine/test-utils';
import { createToolRuntime } from '@spine/tool-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, SystemPrompt } from '../src/index.js';

let dir = '';
let server: ScriptedModelServer | undefined;
let session: Session | undefined;

afterEach(async () => {
  await session?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function agentOn(options: { snapshots?: { afterEvents: number } }) {
  dir = mkdtempSync(join(tmpdir(), 'spine-turn-checkpoint-'));
  server = await createScriptedModelServer({
    replies: [{ text: 'first answer' }, { text: 'second answer' }],
  });
  // A timer that never fires in the test: only a checkpoint, a flush or a write-ahead type writes.
  session = await Session.create({
    store: createJsonlStore({ dir, fsync: 'per-turn', flushIntervalMs: 600_000 }),
    ...(options.snapshots ? { snapshots: options.snapshots } : {}),
  });
  const model = createOpenAICompatibleModel({
    baseUrl: server.baseUrl,
    apiKey: 'test-key',
    provider: 'deepseek',
  });
  const agent = createAgent({
    session,
    model,
    modelId: 'deepseek-v4-flash',
    tools: createToolRuntime({ cwd: dir, tools: [], sandboxBackend: null }),
    systemPrompt: new SystemPrompt('You answer briefly.'),
  });
  const logPath = join(dir, readdirSync(dir).find((name) => name.endsWith('.jsonl')) as string);
  return { agent, session, logPath };
}

/** The event types of the lines in the file now (what a crash at this moment would keep). */
function typesOnDisk(logPath: string): string[] {
  return readFileSync(logPath, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { type: string }).type);
}

describe('the turn boundary', () => {
  it('writes the whole turn, turn/end last, before run() returns', async () => {
    const { agent, session, logPath } = await agentOn({});
    const result = await agent.run('hello');
    expect(result.reason).toBe('completed');
    const onDisk = typesOnDisk(logPath);
    // Without the checkpoint the lines after request/context (the write-ahead) stay pending.
    expect(onDisk.at(-1)).toBe('turn/end');
    expect(onDisk).toContain('assistant/message');
    expect(onDisk.length).toBe(session.events().length);
  });

  it('writes a due automatic snapshot at the turn end while the session stays open', async () => {
    const { agent, session, logPath } = await agentOn({ snapshots: { afterEvents: 5 } });
    expect(existsSync(`${logPath}.snapshot`)).toBe(false);
    await agent.run('hello');
    // The snapshot is written in the background: wait for the write the checkpoint started.
    for (let i = 0; i < 100 && !existsSync(`${logPath}.snapshot`); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(existsSync(`${logPath}.snapshot`)).toBe(true);
    const header = JSON.parse(readFileSync(`${logPath}.snapshot`, 'utf8').split('\n')[0] as string);
    expect(header.seq).toBe(session.events().at(-1)?.seq);
    // A second turn still answers and still writes its own end.
    const second = await agent.run('again');
    expect(second.text).toBe('second answer');
    expect(typesOnDisk(logPath).at(-1)).toBe('turn/end');
  });
});
