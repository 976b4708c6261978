// Benchmarks the fetch guard: the hostile corpus (all refused, zero connections), the cost of the
// URL checks against plain URL parsing, the hardened fetch against a bare undici request to the
// same local HTTPS server, and HTML→Markdown against bare turndown. Prints one JSON line last.
import { readFileSync } from 'node:fs';
import TurndownService from 'turndown';
import { Agent, request } from 'undici';
import { checkUrl, type HttpFetchOptions, htmlToMarkdown } from '../src/index.js';
import { HOSTILE_CORPUS } from '../test/hostile-corpus.js';
import { fetchHarness } from '../test/support/fetch-harness.js';
import { startHttpsServer, testCertificate } from '../test/support/servers.js';

const log = (line: string): void => console.log(line);

async function corpus(
  extra: HttpFetchOptions = {},
): Promise<{ size: number; refused: number; connections: number }> {
  let refused = 0;
  let connections = 0;
  for (const entry of HOSTILE_CORPUS) {
    const { provider } = fetchHarness(entry.answers ?? {}, {
      ...entry.options,
      ...extra,
      onConnect: () => {
        connections += 1;
        throw new Error('connection attempted');
      },
    });
    const error = await provider.fetch(entry.url).catch((caught: unknown) => caught);
    if ((error as { code?: string }).code === 'URL_REFUSED') refused += 1;
  }
  return { size: HOSTILE_CORPUS.length, refused, connections };
}

function urlChecks(): { checkUrlPerSecond: number; urlParsePerSecond: number } {
  const urls = [
    'https://example.com/a?b=1',
    'https://docs.example.org/guide/install#x',
    'https://93.184.216.34/',
  ];
  const rounds = 100_000;
  let started = performance.now();
  for (let index = 0; index < rounds; index += 1) checkUrl(urls[index % urls.length]!);
  const checked = performance.now() - started;
  started = performance.now();
  for (let index = 0; index < rounds; index += 1) new URL(urls[index % urls.length]!);
  const parsed = performance.now() - started;
  return {
    checkUrlPerSecond: Math.round(rounds / (checked / 1000)),
    urlParsePerSecond: Math.round(rounds / (parsed / 1000)),
  };
}

async function fetches(): Promise<{ hardenedMs: number; bareMs: number; ok: boolean }> {
  const page = `<html><head><title>t</title></head><body><main>${'<p>Some paragraph text for the page.</p>'.repeat(50)}</main></body></html>`;
  const server = await startHttpsServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(page);
  });
  const rounds = 60;
  const { provider } = fetchHarness();
  let ok = true;
  let started = performance.now();
  for (let index = 0; index < rounds; index += 1) {
    const result = await provider.fetch(server.url('/'));
    ok &&= result.status === 200 && result.content.length > 0;
  }
  const hardenedMs = (performance.now() - started) / rounds;
  started = performance.now();
  for (let index = 0; index < rounds; index += 1) {
    const agent = new Agent({
      connect: {
        ca: testCertificate().cert,
        lookup: (_host, _options, callback) =>
          callback(null, [{ address: '127.0.0.1', family: 4 }]),
      },
    });
    const response = await request(server.url('/'), { dispatcher: agent });
    await response.body.text();
    await agent.close();
  }
  const bareMs = (performance.now() - started) / rounds;
  await server.close();
  return { hardenedMs, bareMs, ok };
}

function conversion(): { kilobytes: number; convertMs: number; bareTurndownMs: number } {
  const docs = readFileSync(new URL('../test/fixtures/docs-page.html', import.meta.url), 'utf8');
  const body = docs.slice(docs.indexOf('<main'), docs.indexOf('</main>') + 7);
  const big = docs.replace(body, `<main>${body.repeat(60)}</main>`);
  const bare = new TurndownService({ codeBlockStyle: 'fenced' });
  const time = (run: () => void): number => {
    const started = performance.now();
    for (let index = 0; index < 3; index += 1) run();
    return (performance.now() - started) / 3;
  };
  return {
    kilobytes: Math.round(big.length / 1024),
    convertMs: time(() => htmlToMarkdown(big, { baseUrl: 'https://docs.example/' })),
    bareTurndownMs: time(() => bare.turndown(big)),
  };
}

const refusals = await corpus();
log(
  `corpus: ${refusals.refused}/${refusals.size} refused, ${refusals.connections} connections attempted`,
);
// The same corpus with a proxy configured and NO_PROXY=*: every host goes direct and must meet
// every check; the proxy (a closed port) is never contacted.
const bypassed = await corpus({
  useEnvProxy: true,
  env: { HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: '*' },
});
log(
  `corpus with HTTPS_PROXY and NO_PROXY=*: ${bypassed.refused}/${bypassed.size} refused, ${bypassed.connections} connections attempted`,
);
const checks = urlChecks();
log(`checkUrl: ${checks.checkUrlPerSecond}/s vs new URL(): ${checks.urlParsePerSecond}/s`);
const fetched = await fetches();
log(
  `fetch (local HTTPS, 2 KB HTML): hardened ${fetched.hardenedMs.toFixed(2)} ms vs bare undici ${fetched.bareMs.toFixed(2)} ms`,
);
const converted = conversion();
log(
  `HTML→Markdown ${converted.kilobytes} KB: ${converted.convertMs.toFixed(0)} ms vs bare turndown ${converted.bareTurndownMs.toFixed(0)} ms`,
);
const pass =
  refusals.refused === refusals.size &&
  refusals.size >= 60 &&
  refusals.connections === 0 &&
  bypassed.refused === bypassed.size &&
  bypassed.connections === 0 &&
  fetched.ok;
console.log(
  JSON.stringify({
    bench: 'web-tools/guard',
    corpusSize: refusals.size,
    refused: refusals.refused,
    connectionsAttempted: refusals.connections,
    noProxyAllRefused: bypassed.refused,
    noProxyAllConnectionsAttempted: bypassed.connections,
    checkUrlPerSecond: checks.checkUrlPerSecond,
    urlParsePerSecond: checks.urlParsePerSecond,
    checkCostRatio: Number((checks.urlParsePerSecond / checks.checkUrlPerSecond).toFixed(2)),
    hardenedFetchMs: Number(fetched.hardenedMs.toFixed(2)),
    bareFetchMs: Number(fetched.bareMs.toFixed(2)),
    fetchOverheadRatio: Number((fetched.hardenedMs / fetched.bareMs).toFixed(2)),
    convertKilobytes: converted.kilobytes,
    convertMs: Number(converted.convertMs.toFixed(1)),
    bareTurndownMs: Number(converted.bareTurndownMs.toFixed(1)),
    convertRatio: Number((converted.convertMs / converted.bareTurndownMs).toFixed(2)),
    pass,
  }),
);
