// `spine serve` as a person uses it: the CLI started from sources, its printed URL opened in
// chromium. Without the token, from a non-loopback address, for another Host or with a method
// that would change something, it refuses; with it, the list and the session pages load, every
// request goes to the server, and a running session is followed live to its end.
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { createJsonlStore, Session } from '@spine/session-log';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, launchBrowser, type PageWatch, type TestBrowser } from './browser.js';
import { FAMILY, writeFamilySessions } from './family-session.js';
import { writeHostileSession } from './hostile-session.js';
import { APP_DIR, BIN, isolatedEnv, tempFolder } from './run-cli.js';

/** Starts `spine serve` and resolves with its printed URL. */
function startServe(sessions: string): Promise<{ child: ChildProcess; url: URL }> {
  const { env } = isolatedEnv();
  const child = spawn(process.execPath, [BIN, 'serve', '--session-dir', sessions], {
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

/** One raw HTTP request (node:http lets a test send any Host and method). */
function raw(
  url: URL,
  options: { method?: string; host?: string; address?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const call = request(
      {
        host: options.address ?? url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: options.method ?? 'GET',
        headers: { host: options.host ?? url.host },
      },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString('utf8');
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    call.on('error', reject);
    call.end();
  });
}

function onlyServer(watch: PageWatch, url: URL): void {
  for (const requested of watch.requests) expect(new URL(requested).origin).toBe(url.origin);
  expect(watch.dialogs).toEqual([]);
  expect(watch.consoleErrors).toEqual([]);
  expect(watch.pageErrors).toEqual([]);
}

/** Closed sessions written before the others. */
const FILLERS = 60;

describe('spine serve in a real browser', { timeout: 300_000 }, () => {
  let browser: TestBrowser;
  let serve: { child: ChildProcess; url: URL };
  let live: Session;
  let liveClosed = false;
  const sessions = join(tempFolder('spine-serve-'), 'sessions');

  beforeAll(async () => {
    // Older sessions first, so the list has two pages (50 a page) and the rest are on the first.
    const store = createJsonlStore({ dir: sessions, fsync: 'never' });
    for (let n = 0; n < FILLERS; n++)
      await (await Session.create({ store, id: `filler-${n}`, title: `filler ${n}` })).close();
    cpSync(join(APP_DIR, 'examples', 'sessions'), sessions, { recursive: true });
    writeHostileSession(sessions, 'hostile');
    writeFamilySessions(sessions);
    // A running session: its writer holds the lock while the test appends to it.
    live = await Session.create({
      store: createJsonlStore({ dir: sessions, fsync: 'never' }),
      id: 'live-session',
      title: 'a session still running',
      model: 'deepseek/deepseek-v4-flash',
    });
    live.append('turn/start', {}, { turn: 1 });
    live.append(
      'user/message',
      { content: 'count to three', source: 'user' },
      { turn: 1, surfaceOp: { op: 'append' } },
    );
    await live.flush();
    // A long session: 450 events, three pages of 200.
    const long = await Session.create({
      store: createJsonlStore({ dir: sessions, fsync: 'never' }),
      id: 'long-session',
      title: 'a long session',
    });
    for (let step = 1; long.lastSeq < 450; step++) long.append('step/start', {}, { turn: 0, step });
    await long.close();
    [serve, browser] = await Promise.all([startServe(sessions), launchBrowser()]);
  }, 240_000);
  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await browser?.close();
    if (live && !liveClosed) await live.close();
  });

  it('refuses without the token, with a wrong one, for another Host, and anything but GET', async () => {
    const { url } = serve;
    const bare = new URL(url.href);
    bare.search = '';
    expect((await raw(bare)).status).toBe(401);
    const wrong = new URL(url.href);
    wrong.searchParams.set('token', 'x'.repeat(32));
    expect((await raw(wrong)).status).toBe(401);
    expect((await raw(url, { host: 'evil.example.com' })).status).toBe(403);
    expect((await raw(url, { method: 'POST' })).status).toBe(405);
    expect((await raw(url, { method: 'DELETE' })).status).toBe(405);
    expect((await raw(url)).status).toBe(200);
  });

  it('is not reachable on a non-loopback address', async () => {
    expect(serve.url.hostname).toBe('127.0.0.1');
    const external = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;
    // A machine with no external interface has nothing to reach the server from: the bound
    // address asserted above is the whole guarantee there.
    if (external === undefined) return;
    await expect(raw(serve.url, { address: external })).rejects.toThrow(/ECONNREFUSED/);
  });

  it('lists the sessions and opens one, talking to nothing but the server', async () => {
    const watch = await browser.open(serve.url.href);
    const { page } = watch;
    await expect(
      page.locator('tr[data-id="example-fix-add"] a').first().textContent(),
    ).resolves.toBe('Fix the failing test of the example workspace');
    await expect(page.locator('tr[data-id="live-session"] .status').textContent()).resolves.toBe(
      'running',
    );
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'serve-list.png') });
    await page.locator('tr[data-id="example-fix-add"] a').first().click();
    await page.waitForSelector('#seq-49');
    await page.locator('.pager a', { hasText: 'full audit' }).first().click();
    await page.waitForSelector('#verdict');
    await expect(page.locator('#verdict').textContent()).resolves.toContain('verified');
    onlyServer(watch, serve.url);
    await page.close();
  });

  it('runs nothing from a hostile session in the list or on its page', async () => {
    const watch = await browser.open(serve.url.href);
    await watch.page.waitForSelector('tr[data-id="hostile"]');
    await watch.page.locator('tr[data-id="hostile"] a').first().click();
    await watch.page.waitForSelector('#live', { state: 'attached' });
    await watch.page.waitForTimeout(500);
    const found = await watch.page.evaluate<{
      pwned?: string;
      scripts: number;
      handlers: number;
    }>(`({
      pwned: window.__pwned,
      scripts: document.scripts.length,
      handlers: [...document.querySelectorAll('*')].filter((element) =>
        [...element.attributes].some((attribute) => attribute.name.startsWith('on')),
      ).length,
    })`);
    // The page's own live-follow script is the only one.
    expect(found).toEqual({ scripts: 1, handlers: 0 });
    onlyServer(watch, serve.url);
    await watch.page.close();
  });

  it('pages through the session list, 50 a page, each session on one page', async () => {
    const watch = await browser.open(serve.url.href);
    const { page } = watch;
    const ids = () =>
      page.evaluate<string[]>(
        `[...document.querySelectorAll('tr[data-id]')].map((row) => row.dataset.id)`,
      );
    const first = await ids();
    expect(first).toHaveLength(50);
    const total = FILLERS + 6;
    await expect(page.locator('header .meta').textContent()).resolves.toContain(
      `${total} sessions · page 1`,
    );
    expect(await page.locator('.pager a', { hasText: 'newer' }).count()).toBe(0);
    await page.locator('a[rel="next"]').click();
    await page.waitForSelector('header .meta:has-text("page 2")');
    const second = await ids();
    expect(second).toHaveLength(total - 50);
    expect(new Set([...first, ...second]).size).toBe(total);
    // The oldest sessions are last: the fillers, oldest at the end.
    expect(second.at(-1)).toBe('filler-0');
    expect(await page.locator('a[rel="next"]').count()).toBe(0);
    await page.locator('.pager a', { hasText: 'newer' }).click();
    await page.waitForSelector('header .meta:has-text("page 1")');
    expect(await ids()).toEqual(first);
    onlyServer(watch, serve.url);
    await page.close();
  });

  it('links a subagent to its own page and audit, and the child back to its parent', async () => {
    const watch = await browser.open(
      new URL(`/s/${FAMILY.parent}${serve.url.search}`, serve.url).href,
    );
    const { page } = watch;
    await page.locator(`#seq-51 a`, { hasText: FAMILY.child }).click();
    await page.waitForSelector('#seq-1:has-text("child of")');
    expect(new URL(page.url()).pathname).toBe(`/s/${FAMILY.child}`);
    await page.locator('#seq-1 a', { hasText: FAMILY.parent }).click();
    await page.waitForSelector('#seq-51');
    expect(new URL(page.url()).pathname).toBe(`/s/${FAMILY.parent}`);
    await page.locator('.pager a', { hasText: 'full audit' }).first().click();
    await page.waitForSelector('#children');
    await page.locator('#children a', { hasText: FAMILY.child }).click();
    await page.waitForSelector('#verdict');
    expect(new URL(page.url()).pathname).toBe(`/s/${FAMILY.child}/audit`);
    await expect(page.locator('#verdict').textContent()).resolves.toContain('verified');
    // A child the store does not hold is a 404 page, not an error.
    const missing = await browser.open(
      new URL(`/s/${FAMILY.missing}${serve.url.search}`, serve.url).href,
    );
    await expect(missing.page.locator('body').textContent()).resolves.toContain(
      `no session ${FAMILY.missing}`,
    );
    await missing.page.close();
    onlyServer(watch, serve.url);
    await page.close();
  });

  it('pages through a long session, 200 events a page', async () => {
    const watch = await browser.open(new URL(`/s/long-session${serve.url.search}`, serve.url).href);
    const { page } = watch;
    await page.waitForSelector('#seq-200', { state: 'attached' });
    expect(await page.locator('#seq-201').count()).toBe(0);
    expect(await page.locator('#live').count()).toBe(0);
    await page.locator('a[rel="next"]').click();
    await page.waitForSelector('#seq-201', { state: 'attached' });
    expect(await page.locator('#seq-2').count()).toBe(0);
    await page.locator('a[rel="next"]').click();
    await page.waitForSelector('#seq-450', { state: 'attached' });
    // The last page follows the session (closed: it says so at once).
    await page.waitForSelector('#live[data-ended="true"]', { state: 'attached', timeout: 60_000 });
    await page.locator('.pager a', { hasText: 'earlier events' }).first().click();
    await page.waitForSelector('#seq-201', { state: 'attached' });
    onlyServer(watch, serve.url);
    await page.close();
  });

  it('follows a running session to its end', async () => {
    const pageUrl = new URL(`/s/live-session${serve.url.search}`, serve.url);
    const watch = await browser.open(pageUrl.href);
    const { page } = watch;
    await page.waitForSelector('#seq-3');
    await page.waitForSelector('#live[data-follow]', { state: 'attached' });
    for (let n = 1; n <= 3; n++) {
      live.append(
        'user/message',
        { content: `number ${n}`, source: 'runtime-context' },
        { turn: 1, surfaceOp: { op: 'append' } },
      );
      await live.flush();
      await page.waitForSelector(`#seq-${3 + n}`, { timeout: 60_000 });
    }
    live.append('turn/end', { reason: 'completed', steps: 0 }, { turn: 1 });
    await live.close();
    liveClosed = true;
    await page.waitForSelector('#live[data-ended="true"]', { state: 'attached', timeout: 60_000 });
    await expect(page.locator('#seq-7').textContent()).resolves.toContain('turn ended: completed');
    onlyServer(watch, serve.url);
    await page.close();
  });
});
