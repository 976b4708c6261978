// `spine resume --store postgres://…` keeps the model the session last sent a request to, read
// through the store (the JSONL files it would look in do not exist for a PostgreSQL session).
import { migratePostgresStore } from '@spine/store-postgres';
import { createScriptedModelServer, type ScriptedModelServer } from '@spine/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../packages/store-postgres/test/server.js';
import { isolatedEnv, runCli, tempFolder } from './run-cli.js';

let pg: TestServer;
let model: ScriptedModelServer;

beforeAll(async () => {
  pg = await startTestServer();
  await migratePostgresStore({ connectionString: pg.url });
  model = await createScriptedModelServer({ replies: [{ text: 'first' }, { text: 'second' }] });
}, 120_000);

afterAll(async () => {
  await model?.close();
  await pg?.stop();
});

describe('spine resume --store', () => {
  it('keeps the model the session was recorded with', async () => {
    const { env } = isolatedEnv();
    const cwd = tempFolder('spine-resume-store-');
    const store = ['--store', pg.url];
    const first = await runCli(
      [
        'run',
        ...store,
        '--model',
        'openai-compatible/recorded-model',
        '--base-url',
        model.baseUrl,
        '--cwd',
        cwd,
        '--json',
        'one',
      ],
      { env },
    );
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const id = JSON.parse(first.stdout.split('\n')[0] ?? '').body.sessionId as string;
    const second = await runCli(
      ['resume', id, ...store, '--base-url', model.baseUrl, '--cwd', cwd, 'two'],
      { env },
    );
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('second');
    expect(model.requests.map((request) => request.body.model)).toEqual([
      'recorded-model',
      'recorded-model',
    ]);
  }, 120_000);
});
