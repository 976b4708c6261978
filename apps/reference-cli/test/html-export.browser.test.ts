// `spine export --format html` opened in a real browser (chromium through playwright-core): the
// page makes no request, runs nothing from the hostile corpus, shows the log's totals, lands deep
// links, and shows a verification mismatch on the request whose input was altered.
import { copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, launchBrowser, type PageWatch, type TestBrowser } from './browser.js';
import { writeChainedSession } from './chained-session.js';
import { FAMILY, writeFamilySessions } from './family-session.js';
import { BEFORE_CHAIN } from './fixtures.js';
import { BIG_OUTPUT_BYTES, writeHostileSession } from './hostile-session.js';
import { LONG_URL, LONG_WORD, writeLongWordSession } from './long-word-session.js';
import { APP_DIR, isolatedEnv, runCli, tempFolder } from './run-cli.js';

const EXAMPLE = 'example-fix-add';

/** A copy of the example sessions in a temp folder. */
function sessionsCopy(): string {
  const sessions = join(tempFolder('spine-html-'), 'sessions');
  cpSync(join(APP_DIR, 'examples', 'sessions'), sessions, { recursive: true });
  return sessions;
}

/** Runs `spine export <id> --format html -o <file>` and returns the file. */
async function exportHtml(sessions: string, id: string): Promise<string> {
  const out = join(sessions, `${id}.html`);
  const { env } = isolatedEnv();
  const result = await runCli(
    ['export', id, '--format', 'html', '-o', out, '--session-dir', sessions],
    { env, timeoutMs: 240_000 },
  );
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return out;
}

/** Sums the usage of every `assistant/message` in a JSONL log, read straight from the file. */
function usageFromLog(file: string): {
  input: number;
  cacheRead: number;
  output: number;
  cost: number;
  requests: number;
} {
  const sums = { input: 0, cacheRead: 0, output: 0, cost: 0, requests: 0 };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const event = JSON.parse(line) as { type: string; body: { usage?: Record<string, number> } };
    if (event.type === 'request/header') sums.requests++;
    const usage = event.type === 'assistant/message' ? event.body.usage : undefined;
    if (!usage) continue;
    sums.input += usage.inputTokens ?? 0;
    sums.cacheRead += usage.cacheReadTokens ?? 0;
    sums.output += usage.outputTokens ?? 0;
    sums.cost += usage.costUsd ?? 0;
  }
  return sums;
}

const shown = async (watch: PageWatch, name: string): Promise<string> =>
  (await watch.page.locator(`[data-total="${name}"]`).textContent()) ?? '';

function expectQuiet(watch: PageWatch, file: string): void {
  expect(watch.requests).toEqual([pathToFileURL(file).href]);
  expect(watch.dialogs).toEqual([]);
  expect(watch.consoleErrors).toEqual([]);
  expect(watch.pageErrors).toEqual([]);
}

describe('spine export --format html in a real browser', { timeout: 300_000 }, () => {
  let browser: TestBrowser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('makes no request, shows the totals of the log, verifies every request and lands #seq-N', async () => {
    const sessions = sessionsCopy();
    const file = await exportHtml(sessions, EXAMPLE);
    const watch = await browser.open(pathToFileURL(file).href);
    expectQuiet(watch, file);
    const { page } = watch;
    const log = usageFromLog(join(sessions, `${EXAMPLE}.jsonl`));
    const number = (text: string) => Number(text.replace(/[^0-9.]/g, ''));
    expect(number(await shown(watch, 'input'))).toBe(log.input);
    expect(number(await shown(watch, 'cacheRead'))).toBe(log.cacheRead);
    expect(number(await shown(watch, 'output'))).toBe(log.output);
    expect(number(await shown(watch, 'cost'))).toBeCloseTo(log.cost, 6);
    expect(number(await shown(watch, 'requests'))).toBe(log.requests);
    const verdicts = page.locator('#timeline summary .verdict');
    expect(await verdicts.count()).toBe(log.requests);
    expect(await page.locator('#timeline summary .verdict[data-ok="true"]').count()).toBe(
      log.requests,
    );
    await expect(page.locator('#verdict').textContent()).resolves.toContain('verified');
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText, the text as rendered
    await expect(page.locator('#chain').innerText()).resolves.toMatch(/^hash chain verified/);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'export-timeline.png') });
    const request = page.locator('details.req[data-request="2"]');
    await request.locator('summary').first().click();
    await expect(request.locator('.cut').textContent()).resolves.toContain(
      'cached prefix ends here',
    );
    await request.screenshot({ path: join(ARTIFACTS, 'export-request-view.png') });

    const deep = await browser.open(`${pathToFileURL(file).href}#seq-40`);
    // Evaluated in the page (a string: the tests' tsconfig has no DOM types).
    const target = await deep.page.evaluate<{ id?: string; top?: number; height: number }>(`(() => {
      const element = document.querySelector(':target');
      const box = element?.getBoundingClientRect();
      return { id: element?.id, top: box?.top, height: window.innerHeight };
    })()`);
    expect(target.id).toBe('seq-40');
    expect(target.top).toBeGreaterThanOrEqual(0);
    expect(target.top ?? Number.POSITIVE_INFINITY).toBeLessThan(target.height);
    await deep.page.close();
    await page.close();
  });

  it('includes each subagent session in the one file, with anchors of its own, and links to it', async () => {
    const sessions = sessionsCopy();
    writeFamilySessions(sessions);
    const file = await exportHtml(sessions, FAMILY.parent);
    const watch = await browser.open(pathToFileURL(file).href);
    expectQuiet(watch, file);
    const { page } = watch;
    const child = `session-${FAMILY.child}`;
    // Every link to the child leads into this file, and every id in the page is unique.
    const facts = await page.evaluate<{ links: string[]; ids: string[] }>(`({
      links: [...document.querySelectorAll('a')].filter((a) => a.textContent === ${JSON.stringify(FAMILY.child)}).map((a) => a.getAttribute('href')),
      ids: [...document.querySelectorAll('[id]')].map((element) => element.id),
    })`);
    expect(facts.links.length).toBeGreaterThanOrEqual(2);
    for (const href of facts.links) expect(href).toBe(`#${child}`);
    expect(new Set(facts.ids).size).toBe(facts.ids.length);
    // The child's own requests are verified in its section; its header links back to the parent.
    await expect(page.locator(`#${child}-verdict`).textContent()).resolves.toContain('verified');
    await expect(page.locator(`#${child}-seq-1`).textContent()).resolves.toContain('child of');
    expect(await page.locator(`#${child}-seq-1 a[href="#session-${FAMILY.parent}"]`).count()).toBe(
      1,
    );
    expect(await page.locator(`#session-${FAMILY.parent}`).count()).toBe(1);
    // A child the store does not hold is said to be missing.
    await expect(page.locator(`#session-${FAMILY.missing}`).textContent()).resolves.toContain(
      'not in the store',
    );
    await page.locator(`#seq-51 a[href="#${child}"]`).click();
    await expect(
      page.evaluate<string | undefined>(`document.querySelector(':target')?.id`),
    ).resolves.toBe(child);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'export-child-session.png') });
    // Deep links into the child's events land on them.
    const deep = await browser.open(`${pathToFileURL(file).href}#${child}-seq-17`);
    await expect(
      deep.page.evaluate<string | undefined>(`document.querySelector(':target')?.id`),
    ).resolves.toBe(`${child}-seq-17`);
    await deep.page.close();
    await page.close();
  });

  it('shows a mismatch on the request built from a byte flipped in the log, naming the event', async () => {
    const sessions = sessionsCopy();
    const log = join(sessions, `${EXAMPLE}.jsonl`);
    const lines = readFileSync(log, 'utf8').split('\n');
    // The first tool result (seq 14): flip one byte of its content.
    const index = lines.findIndex((line) => line.startsWith('{"seq":14,'));
    const event = JSON.parse(lines[index] as string) as { body: { content: string } };
    event.body.content = `X${event.body.content.slice(1)}`;
    lines[index] = JSON.stringify(event);
    writeFileSync(log, lines.join('\n'));
    const file = await exportHtml(sessions, EXAMPLE);
    const watch = await browser.open(pathToFileURL(file).href);
    expectQuiet(watch, file);
    const { page } = watch;
    // Request 1 (seq 8) was built before seq 14 existed; request 2 (seq 17) carries it.
    await expect(page.locator('#seq-8 summary .verdict').getAttribute('data-ok')).resolves.toBe(
      'true',
    );
    const bad = page.locator('#seq-17 summary .verdict');
    await expect(bad.getAttribute('data-ok')).resolves.toBe('false');
    await expect(bad.textContent()).resolves.toContain('event seq 14');
    await expect(page.locator('#verdict').textContent()).resolves.toContain('MISMATCH');
    await page.close();
  });

  it('puts the first altered event of an edited log at the top of the page, requests still verified', async () => {
    const sessions = join(tempFolder('spine-html-'), 'sessions');
    await writeChainedSession(sessions, 'edited', { title: 'an edited log' });
    const log = join(sessions, 'edited.jsonl');
    writeFileSync(log, readFileSync(log, 'utf8').replace('ALL-DONE', 'ALL-D0NE'));
    const file = await exportHtml(sessions, 'edited');
    const watch = await browser.open(pathToFileURL(file).href);
    expectQuiet(watch, file);
    const { page } = watch;
    const chain = page.locator('#chain');
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText, the text as rendered
    expect(await chain.innerText()).toMatch(/^TAMPERED: the log's hash chain breaks at event 4 /);
    await expect(chain.getAttribute('data-seq')).resolves.toBe('4');
    // Seen first: above the timeline, inside the first screen.
    const tops = await page.evaluate<{ chain: number; timeline: number; height: number }>(`(() => ({
      chain: document.querySelector('#chain').getBoundingClientRect().top,
      timeline: document.querySelector('#timeline').getBoundingClientRect().top,
      height: window.innerHeight,
    }))()`);
    expect(tops.chain).toBeLessThan(tops.timeline);
    expect(tops.chain).toBeLessThan(tops.height);
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText, the text as rendered
    await expect(page.locator('#chain-summary').innerText()).resolves.toContain('TAMPERED');
    await expect(page.locator('#verdict').textContent()).resolves.toContain('verified');
    await page.close();

    const before = join(tempFolder('spine-html-'), 'sessions');
    mkdirSync(before);
    copyFileSync(BEFORE_CHAIN, join(before, `${EXAMPLE}.jsonl`));
    const example = await exportHtml(before, EXAMPLE);
    const unchained = await browser.open(pathToFileURL(example).href);
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText, the text as rendered
    await expect(unchained.page.locator('#chain').innerText()).resolves.toContain(
      'no event carries a chain value',
    );
    await unchained.page.close();
  });

  it('stays within the window when every field holds a 2,000-letter word or a long URL', async () => {
    const sessions = join(tempFolder('spine-html-'), 'sessions');
    await writeLongWordSession(sessions, 'long-words');
    const file = await exportHtml(sessions, 'long-words');
    const watch = await browser.open(pathToFileURL(file).href);
    expectQuiet(watch, file);
    const { page } = watch;
    // Everything folded is opened, so what a reader can unfold is measured too.
    const measure = `(() => {
      for (const details of document.querySelectorAll('details')) details.open = true;
      // What sticks out past the right edge (elements, and text by the element holding it), except
      // inside a box that scrolls on its own (that box itself is measured).
      const scrolls = (element) => getComputedStyle(element).overflowX !== 'visible';
      const clipped = (element) => {
        for (let up = element.parentElement; up; up = up.parentElement) if (scrolls(up)) return true;
        return false;
      };
      const wide = new Set();
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ALL);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const element = node.nodeType === Node.TEXT_NODE ? node.parentElement : node;
        if (!element || clipped(node.nodeType === Node.TEXT_NODE ? node : element)) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const box = node.nodeType === Node.TEXT_NODE ? range : element;
        if (box.getBoundingClientRect().right <= window.innerWidth) continue;
        wide.add(element.tagName + (element.className ? '.' + element.className : ''));
      }
      return {
        scrollWidth: document.scrollingElement.scrollWidth,
        innerWidth: window.innerWidth,
        wide: [...wide],
        text: document.body.textContent ?? '',
      };
    })()`;
    for (const width of [1200, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const found = await page.evaluate<{
        scrollWidth: number;
        innerWidth: number;
        wide: string[];
        text: string;
      }>(measure);
      expect(found.text).toContain(LONG_WORD);
      expect(found.text).toContain(LONG_URL);
      expect(found.innerWidth).toBe(width);
      expect({ width, wide: found.wide }).toEqual({ width, wide: [] });
      expect(found.scrollWidth).toBeLessThanOrEqual(found.innerWidth);
    }
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'export-long-words.png') });
    await page.close();
  });

  it('runs nothing from a hostile corpus and folds a 10 MB single-line output', async () => {
    const sessions = sessionsCopy();
    writeHostileSession(sessions, 'hostile');
    const file = await exportHtml(sessions, 'hostile');
    const watch = await browser.open(pathToFileURL(file).href);
    expectQuiet(watch, file);
    const { page } = watch;
    // Let anything that could fire (onload, onerror, timers) have its chance.
    await page.waitForTimeout(500);
    const found = await page.evaluate<{
      pwned?: string;
      scripts: number;
      handlers: number;
      active: number;
      hrefs: string[];
      text: string;
    }>(`({
      pwned: window.__pwned,
      scripts: document.scripts.length,
      handlers: [...document.querySelectorAll('*')].filter((element) =>
        [...element.attributes].some((attribute) => attribute.name.startsWith('on')),
      ).length,
      active: document.querySelectorAll('img, svg, iframe, object, embed, form, input').length,
      hrefs: [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href') ?? ''),
      text: document.body.textContent ?? '',
    })`);
    expect(found.pwned).toBeUndefined();
    expect(found.scripts).toBe(0);
    expect(found.handlers).toBe(0);
    expect(found.active).toBe(0);
    for (const href of found.hrefs) expect(href).toMatch(/^(#|https?:\/\/|mailto:|[\w.-]+\.html$)/);
    expect(found.hrefs).toContain('https://example.com/docs');
    // The markup is shown as text, and the controls as visible marks.
    expect(found.text).toContain('<script>window.__pwned');
    expect(found.text).toContain('\\x1b[31m');
    expect(found.text).toContain('\\u202e');
    for (const control of ['\u202e', '\u009b', '\u001b']) expect(found.text).not.toContain(control);
    // The 10 MB line is folded with its byte count.
    expect(found.text).toContain(`${BIG_OUTPUT_BYTES + '<script>alert(12)</script>'.length} bytes`);
    expect(readFileSync(file).length).toBeLessThan(2 * 1024 * 1024);
    await page.close();
  });
});
