// The WebFetchProvider conformance cases.
import type { WebFetchProvider, WebFetchResult } from '@spine/protocol';
import { type ConformanceCase, ConformanceFailure, describeError, ensure, show } from './kit.js';
import { expectCode } from './search-cases.js';

/** The title of {@link WEB_FETCH_KIT_PAGE}. */
export const WEB_FETCH_KIT_TITLE = 'Spine conformance page';

/** A sentence of {@link WEB_FETCH_KIT_PAGE} the converted content must keep. */
export const WEB_FETCH_KIT_SENTENCE = 'The fetch kit looks for this exact sentence.';

/** The HTML page the fixture's `pageUrl` must serve (as `text/html; charset=utf-8`). */
export const WEB_FETCH_KIT_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>${WEB_FETCH_KIT_TITLE}</title></head>
<body><main><article>
<h1>Conformance</h1>
<p>${WEB_FETCH_KIT_SENTENCE}</p>
<p>A second paragraph, so that readers which keep only the main text find enough of it.
It says nothing else of interest, which is what conformance pages are for.</p>
</article></main></body></html>
`;

/** URLs every fetch provider must refuse by default (private, loopback, metadata, non-HTTP). */
export const DEFAULT_REFUSED_URLS: readonly string[] = Object.freeze([
  'file:///etc/passwd',
  'https://10.0.0.1/',
  'https://169.254.169.254/latest/meta-data/',
  'https://0x7f.1/',
]);

/** What the fetch kit needs. */
export interface WebFetchProviderFixture {
  /** Makes the provider under test. */
  provider(): WebFetchProvider | Promise<WebFetchProvider>;
  /** A URL the provider may fetch that serves {@link WEB_FETCH_KIT_PAGE} (a loopback server in tests). */
  pageUrl(): string;
  /** URLs the provider must refuse with `URL_REFUSED` (default {@link DEFAULT_REFUSED_URLS}). */
  refusedUrls?: readonly string[];
}

async function make(fixture: WebFetchProviderFixture, what: string): Promise<WebFetchProvider> {
  try {
    return await fixture.provider();
  } catch (error) {
    throw new ConformanceFailure(`${what}: making the provider failed: it ${describeError(error)}`);
  }
}

/** The WebFetchProvider cases, in run order. */
export const webFetchCases: readonly ConformanceCase<WebFetchProviderFixture>[] = [
  {
    name: 'declares specification version 1, kind "fetch", an id and that it is available',
    run: async (fixture) => {
      const what = 'identity';
      const provider = await make(fixture, what);
      ensure(
        provider.specificationVersion === 1,
        `${what}: expected specificationVersion 1, got ${show(provider.specificationVersion)}`,
      );
      ensure(
        provider.kind === 'fetch',
        `${what}: expected kind "fetch", got ${show(provider.kind)}`,
      );
      ensure(
        typeof provider.id === 'string' && provider.id.length > 0,
        `${what}: expected a non-empty id, got ${show(provider.id)}`,
      );
      const state = provider.availability();
      ensure(state.available, `${what}: expected the provider available, got ${show(state)}`);
    },
  },
  {
    name: 'fetches an HTML page as converted text with every metadata field',
    run: async (fixture) => {
      const what = 'page fetch';
      const provider = await make(fixture, what);
      const url = fixture.pageUrl();
      let result: WebFetchResult;
      try {
        result = await provider.fetch(url);
      } catch (error) {
        throw new ConformanceFailure(
          `${what}: expected ${url} to be fetched, but it ${describeError(error)}`,
        );
      }
      ensure(result.url === url, `${what}: expected url ${show(url)}, got ${show(result.url)}`);
      ensure(
        URL.canParse(result.finalUrl),
        `${what}: expected an absolute finalUrl, got ${show(result.finalUrl)}`,
      );
      ensure(result.status === 200, `${what}: expected status 200, got ${show(result.status)}`);
      ensure(
        typeof result.contentType === 'string' && result.contentType.includes('text/html'),
        `${what}: expected a text/html contentType, got ${show(result.contentType)}`,
      );
      ensure(
        typeof result.content === 'string' && result.content.includes(WEB_FETCH_KIT_SENTENCE),
        `${what}: expected the content to keep ${show(WEB_FETCH_KIT_SENTENCE)}, got ${show(result.content)}`,
      );
      ensure(
        !/<\/?(p|html|body|article)\b/i.test(result.content),
        `${what}: expected HTML converted for the model (no raw tags), got ${show(result.content)}`,
      );
      ensure(
        result.title === undefined || result.title === WEB_FETCH_KIT_TITLE,
        `${what}: expected title ${show(WEB_FETCH_KIT_TITLE)} (or none), got ${show(result.title)}`,
      );
      ensure(
        Number.isInteger(result.bytesRead) && result.bytesRead > 0,
        `${what}: expected bytesRead > 0, got ${show(result.bytesRead)}`,
      );
      ensure(
        result.truncated === false,
        `${what}: expected truncated false, got ${show(result.truncated)}`,
      );
      ensure(
        result.provider === provider.id,
        `${what}: expected provider ${show(provider.id)}, got ${show(result.provider)}`,
      );
    },
  },
  {
    name: 'refuses private, loopback, metadata and non-HTTP URLs with URL_REFUSED',
    run: async (fixture) => {
      const provider = await make(fixture, 'refused URLs');
      for (const url of fixture.refusedUrls ?? DEFAULT_REFUSED_URLS) {
        await expectCode(provider.fetch(url), 'URL_REFUSED', `refused URL ${url}`);
      }
    },
  },
  {
    name: 'fails with a typed error when the signal is already aborted',
    run: async (fixture) => {
      const provider = await make(fixture, 'cancelled fetch');
      await expectCode(
        provider.fetch(fixture.pageUrl(), { signal: AbortSignal.abort() }),
        'FETCH_FAILED',
        'cancelled fetch',
      );
    },
  },
];
