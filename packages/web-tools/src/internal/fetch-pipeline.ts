import type { WebFetchResult } from '@spine/protocol';
import { type Dispatcher, request } from 'undici';
import { type IpRange, isRefusedAddress } from '../address-policy.js';
import { FetchFailedError, UrlRefusedError } from '../errors.js';
import type { Resolver } from '../resolver.js';
import { type CheckedUrl, checkUrl } from '../url-policy.js';
import { convert, headerOf } from './convert-body.js';
import {
  type ConnectAttempt,
  createPinnedDispatcher,
  createProxyDispatcher,
} from './dispatcher.js';
import { bypassesProxy, type NoProxyList } from './no-proxy.js';
import { discardBody } from './read-body.js';

/** Validated configuration of the fetch provider. */
export interface FetchConfig {
  id: string;
  maxRedirects: number;
  sameOriginRedirectsOnly: boolean;
  maxBytes: number;
  maxContentChars: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  totalTimeoutMs: number;
  maxUrlLength: number;
  trustedRanges: IpRange[];
  resolver: Resolver;
  userAgent: string;
  proxy?: string;
  /** Hosts that skip `proxy` and go direct under the full address policy. */
  noProxy?: NoProxyList;
  onConnect?: (attempt: ConnectAttempt) => void;
  seam?: { loopbackHost: string; address: string; ca: string | Buffer };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function portOf(url: URL): number {
  return url.port === '' ? 443 : Number(url.port);
}

/** Resolves once and checks every answer; returns the address to pin to. */
async function pinAddress(
  checked: CheckedUrl,
  config: FetchConfig,
  signal: AbortSignal,
): Promise<{ address: string; family: 4 | 6 }> {
  if (config.seam && checked.hostname === config.seam.loopbackHost) {
    return { address: config.seam.address, family: config.seam.address.includes(':') ? 6 : 4 };
  }
  if (checked.literal)
    return { address: checked.literal.address, family: checked.literal.ip.version };
  let answers: { address: string; family: 4 | 6 }[];
  try {
    answers = await config.resolver(checked.hostname, { signal });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new FetchFailedError({
      url: checked.url.href,
      reason: 'dns',
      detail: `Could not resolve ${checked.hostname}; check the host name`,
      cause: error,
    });
  }
  if (answers.length === 0) {
    throw new FetchFailedError({
      url: checked.url.href,
      reason: 'dns',
      detail: `${checked.hostname} has no addresses`,
    });
  }
  for (const answer of answers) {
    const verdict = isRefusedAddress(answer.address, { trustedRanges: config.trustedRanges });
    if (verdict) {
      throw new UrlRefusedError({
        url: checked.url.href,
        reason: verdict.reason,
        detail: `${checked.hostname} resolves to a refused address: ${verdict.detail}`,
      });
    }
  }
  return answers[0]!;
}

/**
 * The next hop as written: absolute and scheme-relative locations stay raw so the URL checks see
 * the host exactly as the server wrote it (a URL parser would turn `0x7f000001` into 127.0.0.1
 * first); path-relative ones cannot change the host and are resolved.
 */
function redirectTarget(location: string, from: URL): string {
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(location)) return location;
  if (/^[/\\]{2}/.test(location)) return `${from.protocol}${location}`;
  try {
    return new URL(location, from).href;
  } catch {
    throw new UrlRefusedError({
      url: location,
      reason: 'malformed',
      detail: `the redirect from ${from.href} is not a URL`,
    });
  }
}

function mapNetworkError(error: unknown, url: string, config: FetchConfig): FetchFailedError {
  const code = (error as { code?: string }).code ?? '';
  const reasons: Record<string, [string, string]> = {
    UND_ERR_CONNECT_TIMEOUT: [
      'connect-timeout',
      `Connecting took longer than ${config.connectTimeoutMs} ms`,
    ],
    UND_ERR_HEADERS_TIMEOUT: [
      'headers-timeout',
      `No response headers within ${config.headersTimeoutMs} ms`,
    ],
    UND_ERR_BODY_TIMEOUT: [
      'body-timeout',
      `The body stalled for more than ${config.bodyTimeoutMs} ms`,
    ],
  };
  const [reason, detail] = reasons[code] ?? [
    code.startsWith('ERR_TLS') || /certificate/i.test(String(error)) ? 'tls' : 'network',
    `The request failed: ${(error as Error).message ?? String(error)}`,
  ];
  return new FetchFailedError({ url, reason, detail, cause: error });
}

/** Fetches `input` under the policy: every hop checked, pinned, limited; then converted. */
export async function fetchWithPolicy(
  input: string,
  config: FetchConfig,
  callerSignal: AbortSignal | undefined,
): Promise<WebFetchResult> {
  const policy = {
    trustedRanges: config.trustedRanges,
    maxUrlLength: config.maxUrlLength,
    ...(config.seam ? { allowedHosts: [config.seam.loopbackHost] } : {}),
  };
  let current = checkUrl(input, policy);
  const origin = current.url.origin;
  const deadline = AbortSignal.timeout(config.totalTimeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, deadline]) : deadline;
  const fail = (error: unknown, url: string): never => {
    if (error instanceof UrlRefusedError || error instanceof FetchFailedError) throw error;
    if (callerSignal?.aborted) {
      throw new FetchFailedError({
        url,
        reason: 'aborted',
        detail: 'The fetch was cancelled',
        cause: error,
      });
    }
    if (deadline.aborted) {
      throw new FetchFailedError({
        url,
        reason: 'timeout',
        detail: `The fetch took longer than ${config.totalTimeoutMs} ms`,
        cause: error,
      });
    }
    throw mapNetworkError(error, url, config);
  };
  for (let hop = 0; ; hop += 1) {
    const url = current.url;
    let dispatcher: Dispatcher | undefined;
    try {
      const settings = {
        connectTimeoutMs: config.connectTimeoutMs,
        headersTimeoutMs: config.headersTimeoutMs,
        bodyTimeoutMs: config.bodyTimeoutMs,
        ...(config.seam && current.hostname === config.seam.loopbackHost
          ? { ca: config.seam.ca }
          : {}),
        ...(config.onConnect ? { onConnect: config.onConnect } : {}),
      };
      const target = { hostname: current.hostname, port: portOf(url) };
      // Each hop's own host decides the route; a bypassed host gets the same resolution, address
      // checks and pinning as a provider without a proxy.
      const viaProxy =
        config.proxy !== undefined &&
        !(config.noProxy && bypassesProxy(config.noProxy, target.hostname, target.port));
      if (config.proxy && viaProxy) {
        dispatcher = createProxyDispatcher(config.proxy, target, settings);
      } else {
        const pinned = await pinAddress(current, config, signal);
        dispatcher = createPinnedDispatcher({ ...target, ...pinned }, settings);
      }
      const response = await request(url.href, {
        dispatcher,
        method: 'GET',
        signal,
        headers: {
          'user-agent': config.userAgent,
          accept:
            'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.1',
          'accept-encoding': 'gzip, deflate, br',
        },
      });
      const location = headerOf(response.headers, 'location');
      if (REDIRECTS.has(response.statusCode) && location !== undefined) {
        discardBody(response.body);
        if (hop >= config.maxRedirects) {
          throw new FetchFailedError({
            url: url.href,
            reason: 'too-many-redirects',
            detail: `Stopped after ${config.maxRedirects} redirects`,
            status: response.statusCode,
          });
        }
        const next = redirectTarget(location, url);
        try {
          current = checkUrl(next, policy);
        } catch (error) {
          const refused = error as UrlRefusedError;
          throw new UrlRefusedError({
            url: next,
            reason: refused.reason,
            detail: `the redirect from ${url.href} was refused: ${refused.detail}`,
          });
        }
        if (config.sameOriginRedirectsOnly && current.url.origin !== origin) {
          throw new UrlRefusedError({
            url: next,
            reason: 'cross-origin-redirect',
            detail: `redirect from ${url.href} leaves ${origin} and only same-origin redirects are allowed`,
          });
        }
        continue;
      }
      return await convert(input, url.href, response, config);
    } catch (error) {
      return fail(error, url.href);
    } finally {
      dispatcher?.destroy().catch(() => undefined);
    }
  }
}
