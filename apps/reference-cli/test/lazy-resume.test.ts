// `spine resume` opens a session lazily: a session of tens of thousands of events, most of them
// compacted off the surface, is continued through the real CLI against the loopback model server,
// and the request it sends is byte for byte the one a full open (SPINE_SESSION_HISTORY=full)
// sends for the same log.
import { cpSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { agentLoopProjections } from '@spine/agent-loop';
import { compactionProjections, createCompactionEngine, createTokenMeter } from '@spine/compaction';
import { SESSION_TOTALS } from '@spine/harness';
import { createJsonlStore, Session } from '@spine/session-log';
import { createScriptedModelServer, type ScriptedModelServer } from '@spine/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli, tempFolder } from './run-cli.js';

let model: ScriptedModelServer;
beforeAll(async () => {
  model = await createScriptedModelServer({
    replies: [{ text: 'first' }, { text: 'lazy answer' }, { text: 'full answer' }],
  });
});
afterAll(async () => {
  await model?.close();
});

/** Appends `turns` turns of a read, its result and an answer, then compacts them away. */
async function lengthen(sessionDir: string, id: string, turns: number): Promise<number> {
  const store = createJsonlStore({ dir: sessionDir, fsync: 'never' });
  const projections = [...agentLoopProjections, ...compactionProjections, SESSION_TOTALS];
  const session = await Session.open({ store, id, projections });
  const surface = { surfaceOp: { op: 'append' as const } };
  for (let turn = 2; turn < turns + 2; turn++) {
    const path = `src/module-${turn % 50}.ts`;
    session.append('turn/start', {}, { turn });
    session.append(
      'user/message',
      { content: `Check ${path} (${turn})`, source: 'user' },
      { turn, ...surface },
    );
    const call = {
      type: 'tool-call',
      id: `read-${turn}`,
      name: 'read_file',
      arguments: JSON.stringify({ path }),
    };
    session.append(
      'assistant/message',
      { content: [call], finishReason: 'tool-calls' },
      { turn, step: 1, ...surface },
    );
    const content = `export const value${turn} = "naïve \\"quoted\\" ✓";\n`.repeat(8);
    session.append(
      'tool/result',
      { toolCallId: call.id, toolName: 'read_file', content, isError: false },
      { turn, step: 1, ...surface },
    );
    const text = `Module ${turn % 50} looks fine.`;
    session.append(
      'assistant/message',
      { content: [{ type: 'text', text }], finishReason: 'stop' },
      { turn, step: 2, ...surface },
    );
    session.append('turn/end', { reason: 'completed', steps: 2 }, { turn, step: 2 });
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
  const events = session.lastSeq;
  const onSurface = session.surface().length;
  await session.close();
  expect(onSurface).toBeLessThan(events / 20);
  return events;
}

describe('spine resume of a long session', () => {
  it('opens it lazily and sends the request a full open sends', async () => {
    const { env, sessionDir } = isolatedEnv();
    const cwd = exampleWorkspace('spine-lazy-resume-');
    const first = await runCli(
      ['run', ...modelArgs(model.baseUrl), '--cwd', cwd, '--json', 'begin'],
      { env },
    );
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const id = JSON.parse(first.stdout.split('\n')[0] ?? '').body.sessionId as string;
    const events = await lengthen(sessionDir, id, 4_000);
    expect(events).toBeGreaterThan(20_000);
    expect(statSync(join(sessionDir, `${id}.jsonl`)).size).toBeGreaterThan(5_000_000);

    // The same log twice: resumed lazily (the default) and with every event read.
    const fullDir = join(tempFolder('spine-lazy-full-'), 'sessions');
    cpSync(sessionDir, fullDir, { recursive: true });
    const resume = ['resume', id, ...modelArgs(model.baseUrl), '--cwd', cwd, 'now the next module'];
    const lazy = await runCli(resume, { env });
    expect(lazy.code).toBe(0);
    expect(lazy.stdout).toContain('lazy answer');
    const full = await runCli(resume, {
      env: { ...env, SPINE_SESSION_DIR: fullDir, SPINE_SESSION_HISTORY: 'full' },
    });
    expect(full.code).toBe(0);
    expect(full.stdout).toContain('full answer');

    expect(model.requests).toHaveLength(3);
    const [, fromLazy, fromFull] = model.requests;
    expect(fromLazy?.body.messages).toContainEqual({
      role: 'user',
      content: 'now the next module',
    });
    expect(JSON.stringify(fromLazy?.body)).toContain('compacted-summary');
    expect(fromLazy?.raw).toBe(fromFull?.raw);

    // What the lazy run recorded is rebuilt byte for byte from the whole log.
    const replayed = await runCli(['replay', id, '--verify'], { env });
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toContain('verified: all 2 requests');
  }, 300_000);
});
