// `spine resume` reads the snapshot and the tail, not the log: two sessions that differ only in
// the length of their (compacted) history, each left with a step interrupted after `tool/started`,
// are resumed through the real CLI against the loopback model server. The bytes each process
// read (rchar, counted by a preloaded probe) differ by far less than the logs do, and the
// interrupted call is still answered "outcome unknown".
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createCompactionEngine, createTokenMeter } from '@spine/compaction';
import { agentProjections, newSessionId } from '@spine/harness';
import type { SessionEvent } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { createScriptedModelServer, type ScriptedModelServer } from '@spine/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_DIR, exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

const MODEL = 'openai-compatible/deepseek-v4-flash';
let model: ScriptedModelServer;
beforeAll(async () => {
  model = await createScriptedModelServer({
    replies: [{ text: 'short resumed' }, { text: 'long resumed' }],
  });
});
afterAll(async () => {
  await model?.close();
});

/**
 * Writes a session of `turns` finished turns (a read, its result, an answer), compacted away, then
 * closes it (the snapshot is written); reopens it without snapshots and appends a step that a
 * crash interrupted after `tool/started` of `read-tail`, so the snapshot does not cover it.
 */
async function writeSession(sessionDir: string, cwd: string, turns: number): Promise<string> {
  const store = createJsonlStore({ dir: sessionDir, fsync: 'never' });
  const id = newSessionId(new Date(Date.UTC(2026, 0, 1, 0, 0, turns % 60)));
  const projections = await agentProjections();
  const session = await Session.create({ store, id, cwd, model: MODEL, projections });
  const surface = { surfaceOp: { op: 'append' as const } };
  for (let turn = 1; turn <= turns; turn++) {
    const call = { type: 'tool-call', id: `read-${turn}`, name: 'read', arguments: '{}' };
    session.append('turn/start', {}, { turn });
    session.append(
      'user/message',
      { content: `Look (${turn})`, source: 'user' },
      { turn, ...surface },
    );
    session.append('step/start', {}, { turn, step: 1 });
    session.append(
      'assistant/message',
      { content: [call], finishReason: 'tool-calls' },
      { turn, step: 1, ...surface },
    );
    session.append(
      'tool/started',
      { toolCallId: call.id, toolName: 'read', arguments: call.arguments },
      { turn, step: 1 },
    );
    const content = `export const value${turn} = "naïve ✓";\n`.repeat(8);
    session.append(
      'tool/result',
      { toolCallId: call.id, toolName: 'read', content, isError: false },
      { turn, step: 1, ...surface },
    );
    session.append('step/end', {}, { turn, step: 1 });
    session.append('turn/end', { reason: 'completed', steps: 1 }, { turn, step: 1 });
  }
  const engine = createCompactionEngine({ meter: createTokenMeter() });
  const outcome = await engine.compact({
    session,
    reason: 'manual',
    contextWindow: 32_000,
    system: '',
    tools: [],
  });
  expect(outcome.status).toBe('compacted');
  await session.close();
  const crashed = await Session.open({ store, id, projections, snapshots: false, history: 'lazy' });
  const turn = turns + 1;
  const call = { type: 'tool-call', id: 'read-tail', name: 'read', arguments: '{"path":"a"}' };
  crashed.append('turn/start', {}, { turn });
  crashed.append('user/message', { content: 'Look again', source: 'user' }, { turn, ...surface });
  crashed.append('step/start', {}, { turn, step: 1 });
  crashed.append(
    'assistant/message',
    { content: [call], finishReason: 'tool-calls' },
    { turn, step: 1, ...surface },
  );
  crashed.append(
    'tool/started',
    { toolCallId: call.id, toolName: 'read', arguments: call.arguments },
    { turn, step: 1 },
  );
  await crashed.close();
  return id;
}

function eventsOf(sessionDir: string, id: string): SessionEvent[] {
  return readFileSync(join(sessionDir, `${id}.jsonl`), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as SessionEvent);
}

describe('spine resume of a long session', () => {
  it('reads a bounded amount however long the log, and answers the interrupted call', async () => {
    const probe = join(APP_DIR, 'test', 'io-probe.mjs');
    const { env, root, sessionDir } = isolatedEnv();
    const cwd = exampleWorkspace('spine-resume-reads-');
    const short = await writeSession(sessionDir, cwd, 400);
    const long = await writeSession(sessionDir, cwd, 4_000);
    const size = (id: string) => statSync(join(sessionDir, `${id}.jsonl`)).size;
    const grown = size(long) - size(short);
    expect(grown).toBeGreaterThan(4_000_000);

    const read = async (id: string, reply: string): Promise<number> => {
      const report = join(root, `io-${id}.txt`);
      const probed = {
        ...env,
        SPINE_IO_PROBE: report,
        NODE_OPTIONS: `--import=${pathToFileURL(probe).href}`,
      };
      const args = [
        'resume',
        id,
        ...modelArgs(model.baseUrl),
        '--cwd',
        cwd,
        '--approval',
        'never-ask',
      ];
      const resumed = await runCli(args, { env: probed });
      expect(resumed.stderr).not.toContain('Error');
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toContain(reply);
      const lines = readFileSync(report, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(1);
      return Number(lines[0]?.split(' ')[1]);
    };
    const shortRead = await read(short, 'short resumed');
    const longRead = await read(long, 'long resumed');
    expect(shortRead).toBeGreaterThan(0);
    // Before: the log was streamed twice (open children, interrupted calls) before the open, so
    // the difference was twice the growth. Now it is the snapshot's: mostly the tool-call-id
    // filter (a fixed 350 KB once more than 2,048 ids were used; the short session has none).
    expect(longRead - shortRead).toBeLessThan(grown / 8);

    for (const id of [short, long]) {
      const answer = eventsOf(sessionDir, id).find(
        (event) =>
          event.type === 'tool/result' &&
          (event.body as { toolCallId?: string }).toolCallId === 'read-tail',
      );
      expect(answer?.body).toMatchObject({ outcome: 'unknown', isError: true });
    }
  }, 240_000);
});
