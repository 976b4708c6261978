import { copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createJsonlStore, Session } from '@spine/session-log';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_SESSION_ID } from '../scripts/example-task.js';
import { BEFORE_CHAIN } from './fixtures.js';
import { APP_DIR, isolatedEnv, runCli } from './run-cli.js';

const surface = { surfaceOp: { op: 'append' as const } };

describe('spine verify', { timeout: 120_000 }, () => {
  it('accepts a chained session, then names the event whose final answer was edited (exit 5)', async () => {
    const { env, sessionDir } = isolatedEnv();
    const session = await Session.create({
      store: createJsonlStore({ dir: sessionDir }),
      id: 'audit',
    });
    session.append('turn/start', {}, { turn: 1 });
    session.append(
      'user/message',
      { content: 'Is the build green?', source: 'user' },
      { turn: 1, ...surface },
    );
    session.append(
      'assistant/message',
      { content: [{ type: 'text', text: 'No: 3 tests fail.' }], finishReason: 'stop' },
      { turn: 1, ...surface },
    );
    session.append('turn/end', { reason: 'completed' }, { turn: 1 });
    await session.close();

    const good = await runCli(['verify', 'audit'], { env });
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('audit: 5 event(s), every event chains from the header');

    const path = join(sessionDir, 'audit.jsonl');
    writeFileSync(path, readFileSync(path, 'utf8').replace('No: 3 tests fail.', 'Yes, all green'));
    const bad = await runCli(['verify', 'audit'], { env });
    expect(bad.code).toBe(5);
    expect(bad.stdout).toContain('event 4 (line 4) does not match its chain value');
    const json = await runCli(['verify', 'audit', '--json'], { env });
    expect(json.code).toBe(5);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      problem: { kind: 'altered', seq: 4 },
    });
  });

  it('verifies the bundled example session, whose every event chains from the header', async () => {
    const { env, sessionDir } = isolatedEnv();
    cpSync(join(APP_DIR, 'examples', 'sessions'), sessionDir, { recursive: true });
    const example = await runCli(['verify', EXAMPLE_SESSION_ID], { env });
    expect(example.code).toBe(0);
    expect(example.stdout).toContain(
      `${EXAMPLE_SESSION_ID}: 49 event(s), every event chains from the header`,
    );
  });

  it('says a log written before the chain existed has nothing to verify, and refuses an unknown id', async () => {
    const { env, sessionDir } = isolatedEnv();
    mkdirSync(sessionDir, { recursive: true });
    copyFileSync(BEFORE_CHAIN, join(sessionDir, `${EXAMPLE_SESSION_ID}.jsonl`));
    const old = await runCli(['verify', EXAMPLE_SESSION_ID], { env });
    expect(old.code).toBe(0);
    expect(old.stdout).toContain('no event carries a chain value');
    const missing = await runCli(['verify', 'nope'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('No session "nope"');
  });
});
