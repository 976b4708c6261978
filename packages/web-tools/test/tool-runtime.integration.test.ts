import type { ToolCallPart, ToolRunEvent } from '@spine/protocol';
import { createToolRuntime } from '@spine/tool-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSearxngSearchProvider, createWebRuntime, createWebTools } from '../src/index.js';
import { fetchHarness } from './support/fetch-harness.js';
import { startHttpServer, startHttpsServer, type TestServer } from './support/servers.js';

let site: TestServer;
let searx: TestServer;

beforeAll(async () => {
  site = await startHttpsServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('release notes: v2 drops callbacks');
  });
  searx = await startHttpServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({ results: [{ title: 'Notes', url: site.url('/notes'), content: 'v2' }] }),
    );
  });
});

afterAll(async () => {
  await site.close();
  await searx.close();
});

const call = (id: string, name: string, args: unknown): ToolCallPart => ({
  type: 'tool-call',
  id,
  name,
  arguments: JSON.stringify(args),
});

describe('web tools inside the ordinary tool runtime', () => {
  it('run in parallel, validate arguments and commit results in call order', async () => {
    const web = createWebRuntime({
      providers: [createSearxngSearchProvider({ baseUrl: searx.url('') }), fetchHarness().provider],
    });
    const runtime = createToolRuntime({
      cwd: process.cwd(),
      tools: createWebTools(web),
      approval: 'never-ask',
      sandboxBackend: null,
    });
    expect(
      runtime
        .specs()
        .map((spec) => spec.name)
        .sort(),
    ).toEqual(['web_fetch', 'web_search']);
    const events: ToolRunEvent[] = [];
    const results = await runtime.run(
      [
        call('a', 'web_search', { query: 'release notes' }),
        call('b', 'web_fetch', { url: site.url('/notes') }),
        call('c', 'web_fetch', { url: 'https://[::ffff:169.254.169.254]/' }),
        call('d', 'web_fetch', { url: 7 }),
      ],
      { onEvent: (event) => events.push(event) },
    );
    expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([
      ['a', false],
      ['b', false],
      ['c', true],
      ['d', true],
    ]);
    expect(results[0]?.content).toContain(`URL: ${site.url('/notes')}`);
    expect(results[1]?.content).toContain('release notes: v2 drops callbacks');
    expect(results[1]?.meta).toMatchObject({
      provider: 'http',
      sourceUrl: site.url('/notes'),
      contentType: 'text/plain',
    });
    expect(results[2]?.content).toContain('URL_REFUSED');
    expect(results[3]?.outcome).toBe('invalid');
    const committed = events.flatMap((event) =>
      event.type === 'result' ? [event.body.toolCallId] : [],
    );
    expect(committed).toEqual(['a', 'b', 'c', 'd']);
  });
});
