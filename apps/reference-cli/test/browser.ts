// A real browser for the HTML tests: Debian's chromium driven by playwright-core (which downloads
// no browser of its own), with a fresh profile per launch. Records every request a page makes,
// every dialog, console error and page error, so a test can assert there were none.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** The browser binary (`scripts/system-deps.sh` installs it). */
export const CHROMIUM = process.env.SPINE_CHROMIUM ?? '/usr/bin/chromium';

/** Where screenshots go: a CI artefact folder, never checked in (`SPINE_TEST_ARTIFACTS` moves it). */
export const ARTIFACTS =
  process.env.SPINE_TEST_ARTIFACTS ?? join(import.meta.dirname, '..', '..', '..', 'test-artifacts');

/** What a page did besides rendering. */
export interface PageWatch {
  page: Page;
  requests: string[];
  dialogs: string[];
  consoleErrors: string[];
  pageErrors: string[];
}

/** A browser with a fresh profile; `close` removes the profile. */
export interface TestBrowser {
  context: BrowserContext;
  open(url: string): Promise<PageWatch>;
  close(): Promise<void>;
}

/** Launches chromium headless with the flags that work as root and as a normal user. */
export async function launchBrowser(): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'spine-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1200, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async open(url) {
      const page = await context.newPage();
      const watch: PageWatch = {
        page,
        requests: [],
        dialogs: [],
        consoleErrors: [],
        pageErrors: [],
      };
      page.on('request', (request) => watch.requests.push(request.url()));
      page.on('dialog', (dialog) => {
        watch.dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning')
          watch.consoleErrors.push(message.text());
      });
      page.on('pageerror', (error) => watch.pageErrors.push(error.message));
      await page.goto(url, { waitUntil: 'load', timeout: 120_000 });
      return watch;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
