// `spine serve --store postgres://…`: the list comes from the PostgreSQL store, and a session
// being written there is followed live in the browser through the store's follower.
import { type ChildProcess, spawn } from 'node:child_process';
import { Session } from '@spine/session-log';
import { createPostgresStore, migratePostgresStore } from '@spine/store-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../packages/store-postgres/test/server.js';
import { launchBrowser, type TestBrowser } from './browser.js';
import { APP_DIR, BIN, isolatedEnv } from './run-cli.js';

function startServe(storeUrl: string): Promise<{ child: ChildProcess; url: URL }> {
  const { env } = isolatedEnv();
  const child = spawn(process.execPath, [BIN, 'serve', '--store', storeUrl], {
    cwd: APP_DIR,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(out);
      if (line) resolve({ child, url: new URL(line[0]) });
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
    });
    child.on('exit', (code) => reject(new Error(`spine serve exited ${code}: ${err}`)));
  });
}

describe('spine serve --store in a real browser', { timeout: 300_000 }, () => {
  let pg: TestServer;
  let browser: TestBrowser;
  let serve: { child: ChildProcess; url: URL };
  let session: Session;
  let store: ReturnType<typeof createPostgresStore>;

  beforeAll(async () => {
    pg = await startTestServer();
    await migratePostgresStore({ connectionString: pg.url });
    store = createPostgresStore({ connectionString: pg.url });
    session = await Session.create({
      store,
      id: 'pg-live',
      title: 'written to PostgreSQL',
      model: 'deepseek/deepseek-v4-flash',
    });
    session.append('turn/start', {}, { turn: 1 });
    session.append(
      'user/message',
      { content: 'hello from the store', source: 'user' },
      { turn: 1, surfaceOp: { op: 'append' } },
    );
    await session.flush();
    [serve, browser] = await Promise.all([startServe(pg.url), launchBrowser()]);
  }, 240_000);
  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await browser?.close();
    await session?.close().catch(() => {});
    await store?.close();
    await pg?.stop();
  });

  it('lists the store session and follows new events from the store follower', async () => {
    const watch = await browser.open(serve.url.href);
    const { page } = watch;
    await expect(page.locator('tr[data-id="pg-live"] a').first().textContent()).resolves.toBe(
      'written to PostgreSQL',
    );
    await page.locator('tr[data-id="pg-live"] a').first().click();
    await page.waitForSelector('#seq-3');
    await page.waitForSelector('#live[data-follow]', { state: 'attached' });
    session.append(
      'user/message',
      { content: 'a later message', source: 'runtime-context' },
      { turn: 1, surfaceOp: { op: 'append' } },
    );
    session.append('turn/end', { reason: 'completed', steps: 0 }, { turn: 1 });
    await session.flush();
    await page.waitForSelector('#seq-5', { state: 'attached', timeout: 60_000 });
    await expect(page.locator('#seq-5').textContent()).resolves.toContain('turn ended: completed');
    // The writer closes the session: the page says so once the lease is gone.
    await session.close();
    await page.waitForSelector('#live[data-ended="true"]', { state: 'attached', timeout: 60_000 });
    await expect(page.locator('#live-end').textContent()).resolves.toBe('The session is closed.');
    for (const requested of watch.requests)
      expect(new URL(requested).origin).toBe(serve.url.origin);
    expect(watch.consoleErrors).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
    await page.close();
  });
});
