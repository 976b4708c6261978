import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpManager, type McpManager, startLoopbackOAuth } from '../src/index.js';
import { runTool, tempFolder, toolNamed } from './helpers.js';
import { type OAuthEverything, startOAuthEverything } from './oauth-server.js';

describe('startLoopbackOAuth', () => {
  let server: OAuthEverything;
  const managers: McpManager[] = [];
  beforeAll(async () => {
    server = await startOAuthEverything();
  });
  afterAll(async () => {
    await Promise.all(managers.map((manager) => manager.close()));
    await server.close();
  });

  it('finishes a sign-in through its loopback callback and keeps the tokens per server in dir', async () => {
    const dir = join(tempFolder('spine-mcp-loopback-'), 'mcp-oauth');
    const shown: string[] = [];
    const landed: string[] = [];
    const oauth = await startLoopbackOAuth({
      dir,
      // Plays the person's browser: opens the URL, then follows the redirect to the listener.
      onAuthorizationUrl: (name, url) => {
        shown.push(name);
        void (async () => {
          const answer = await fetch(url, { redirect: 'manual' });
          const callback = new URL(answer.headers.get('location') ?? '', url);
          expect(callback.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
          expect(callback.pathname).toBe('/callback/secure%20one');
          landed.push(await (await fetch(callback)).text());
        })();
      },
    });
    try {
      const manager = createMcpManager({
        servers: { 'secure one': { type: 'http', url: `${server.origin}/mcp` } },
        cwd: dir,
        authProvider: oauth.providerFor,
      });
      managers.push(manager);
      const tools = await manager.tools();
      expect(manager.diagnostics()).toEqual([]);
      expect(
        (await runTool(toolNamed(tools, 'mcp__secure_one__echo'), { message: 'in' })).content,
      ).toBe('Echo: in');
      expect(shown).toEqual(['secure one']);
      expect(landed[0]).toContain('Signed in');
      const file = join(dir, 'secure%20one.json');
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      oauth.close();
    }
  }, 60_000);

  it('answers 404 where no sign-in waits, fails a declined sign-in, and fails waiting ones on close', async () => {
    const dir = tempFolder('spine-mcp-loopback-');
    const urls: URL[] = [];
    const oauth = await startLoopbackOAuth({
      dir,
      onAuthorizationUrl: (_name, url) => urls.push(url),
    });
    const declined = oauth.providerFor('a');
    const redirect = new URL(String(declined.redirectUrl));
    const authorizeA = (declined.redirectToAuthorization as (url: URL) => Promise<void>)(
      new URL('https://auth.example/a'),
    );
    const codeA = declined.waitForAuthorizationCode();
    codeA.catch(() => {});
    await authorizeA;
    expect((await fetch(new URL('/callback/nobody', redirect))).status).toBe(404);
    expect((await fetch(new URL('/elsewhere', redirect))).status).toBe(404);
    const refused = await fetch(new URL('?error=access_denied', redirect));
    expect(refused.status).toBe(400);
    await expect(codeA).rejects.toThrow('the sign-in was not completed (access_denied)');

    const pending = oauth.providerFor('b');
    const authorizeB = (pending.redirectToAuthorization as (url: URL) => Promise<void>)(
      new URL('https://auth.example/b'),
    );
    const codeB = pending.waitForAuthorizationCode();
    codeB.catch(() => {});
    await authorizeB;
    oauth.close();
    await expect(codeB).rejects.toThrow('the session ended before the sign-in');
    expect(urls.map((url) => url.href)).toEqual([
      'https://auth.example/a',
      'https://auth.example/b',
    ]);
  }, 30_000);
});
