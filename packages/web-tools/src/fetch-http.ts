import type { ProviderAvailability, WebFetchProvider, WebFetchResult } from '@spine/protocol';
import { type IpRange, isRefusedAddress, parseTrustedRanges } from './address-policy.js';
import { WebConfigError } from './errors.js';
import type { ConnectAttempt } from './internal/dispatcher.js';
import { type FetchConfig, fetchWithPolicy } from './internal/fetch-pipeline.js';
import { type NoProxyList, parseNoProxy } from './internal/no-proxy.js';
import { parseHostLiteral } from './ip-address.js';
import { type Resolver, systemResolver } from './resolver.js';
import { DEFAULT_MAX_URL_LENGTH } from './url-policy.js';

export type { ConnectAttempt } from './internal/dispatcher.js';

/** Default limits of {@link createHttpFetchProvider}. */
export const DEFAULT_FETCH_LIMITS = {
  /** Redirects followed. */
  maxRedirects: 5,
  /** Decoded body bytes read (a safety cap; the content budget applies to the Markdown). */
  maxBytes: 5 * 1024 * 1024,
  /** Characters of converted content (a safety cap; `web_fetch` shows a smaller window). */
  maxContentChars: 1_000_000,
  /** TCP + TLS connection time, ms. */
  connectTimeoutMs: 10_000,
  /** Time to response headers, ms. */
  headersTimeoutMs: 15_000,
  /** Longest body silence, ms. */
  bodyTimeoutMs: 15_000,
  /** Whole fetch, redirects included, ms. */
  totalTimeoutMs: 30_000,
} as const;

/**
 * Test-only seam: lets one named host reach a loopback server with a custom CA. It exists so the
 * provider can be tested against a real local HTTPS server; it is set only in code (never from
 * model input or the environment), only ever opens a loopback address, and is reachable only
 * through `@spine/web-tools/internal` ({@link createHttpFetchProviderWithTestSeam}), not through
 * the public {@link HttpFetchOptions}.
 */
export interface UnsafeTestSeam {
  /** The host name (with a dot, not an IP literal) that maps to the loopback address. */
  loopbackHost: string;
  /** The loopback address to use. Default `127.0.0.1`. Must be in 127.0.0.0/8 or `::1`. */
  address?: string;
  /** PEM of the CA that signed the local server's certificate. */
  ca: string | Buffer;
}

/** Deployment configuration of the hardened HTTP fetch provider. All limits have safe defaults. */
export interface HttpFetchOptions {
  /** Provider id. Default `http`. */
  id?: string;
  /** Most redirects followed (each hop is re-validated). Default 5. */
  maxRedirects?: number;
  /** Follow a redirect only when it stays on the same origin. Default false. */
  sameOriginRedirectsOnly?: boolean;
  /** Most decoded body bytes read; the stream is cut there. Default 5 MiB. */
  maxBytes?: number;
  /**
   * Most characters of converted content returned, cut at a block boundary after conversion and
   * cleanup. Default 1 000 000 (the `web_fetch` tool shows the model a smaller window of it).
   */
  maxContentChars?: number;
  /** Time to open the TCP+TLS connection, per hop. Default 10 s. */
  connectTimeoutMs?: number;
  /** Time to receive the response headers, per hop. Default 15 s. */
  headersTimeoutMs?: number;
  /** Longest silence while reading the body. Default 15 s. */
  bodyTimeoutMs?: number;
  /** Time for the whole fetch, redirects included. Default 30 s. */
  totalTimeoutMs?: number;
  /** Longest URL accepted. Default 4096. */
  maxUrlLength?: number;
  /**
   * CIDR ranges the deployment trusts although they are not public, for example `198.18.0.0/15`
   * behind a fake-IP DNS resolver. Off by default. Loopback, link-local and unspecified ranges can
   * never be trusted.
   */
  trustedRanges?: string[];
  /**
   * HTTPS proxy URL (`http://proxy:3128`). The proxy resolves host names, so the address checks on
   * resolved names are skipped for proxied hosts; scheme, credential, IP-literal and limit checks
   * still apply. Hosts listed in `noProxy` go direct with every check. Off by default.
   */
  proxy?: string;
  /**
   * Hosts that skip the proxy and are fetched directly, under the full address policy (DNS
   * answers checked, private and loopback ranges refused, trusted ranges honoured), as curl reads
   * NO_PROXY: `'*'` (every host), `'example.com'` or `'.example.com'` (the name and its
   * subdomains, case-insensitive), `'example.com:8443'` (one port), `'203.0.113.7'`,
   * `'2001:db8::1'` or `'[2001:db8::1]:443'` (IP-literal hosts, exactly) and CIDR ranges
   * (`'10.0.0.0/8'`, `'fd00::/8'`) for IP-literal hosts. Decided for every redirect hop by that
   * hop's host. Takes precedence over `NO_PROXY` from `env`. Default: none.
   */
  noProxy?: string[];
  /**
   * Take the proxy from `HTTPS_PROXY` / `https_proxy` in `env`, and the hosts that skip it from
   * `NO_PROXY` / `no_proxy` (same syntax as `noProxy`; entries that cannot
   * be read are ignored, as curl does). Off by default.
   */
  useEnvProxy?: boolean;
  /** Environment read by `useEnvProxy`. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** DNS port. Default {@link systemResolver}. */
  resolver?: Resolver;
  /** Called just before a socket is opened (audit logs; tests use it to prove nothing connects). */
  onConnect?: (attempt: ConnectAttempt) => void;
  /** User-Agent header. */
  userAgent?: string;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen <= 0) {
    throw new WebConfigError({
      detail: `${name} must be a positive integer (got ${String(value)})`,
    });
  }
  return chosen;
}

function checkSeam(seam: UnsafeTestSeam): UnsafeTestSeam & { address: string } {
  const address = seam.address ?? '127.0.0.1';
  const verdict = isRefusedAddress(address);
  if (verdict?.reason !== 'loopback') {
    throw new WebConfigError({
      detail: `the test seam's address must be a loopback address (got ${address})`,
    });
  }
  const host = seam.loopbackHost.toLowerCase();
  if (!host.includes('.') || parseHostLiteral(host) || !seam.ca) {
    throw new WebConfigError({
      detail: 'the test seam needs a dotted host name (not an IP literal) and a CA certificate',
    });
  }
  return { ...seam, loopbackHost: host, address };
}

function checkProxy(proxy: string): string {
  let parsed: URL;
  try {
    parsed = new URL(proxy);
  } catch (error) {
    throw new WebConfigError({
      detail: `proxy "${proxy}" is not a URL; use http://host:port`,
      cause: error,
    });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new WebConfigError({ detail: `proxy "${proxy}" must be an http:// or https:// URL` });
  }
  return parsed.href;
}

function noProxyOf(options: HttpFetchOptions, env: NodeJS.ProcessEnv): NoProxyList | undefined {
  if (options.noProxy !== undefined) {
    const list = parseNoProxy(options.noProxy);
    if (list.invalid.length > 0) {
      throw new WebConfigError({
        detail: `noProxy entry ${list.invalid.map((entry) => `"${entry}"`).join(', ')} is not a host name, host:port, IP address or CIDR range; fix or remove it`,
      });
    }
    return list;
  }
  const fromEnv = options.useEnvProxy ? env.NO_PROXY || env.no_proxy : undefined;
  return fromEnv ? parseNoProxy(fromEnv) : undefined;
}

/**
 * Creates the hardened HTTPS fetch provider. Every hop is checked before any connection: https
 * only, no credentials, no obfuscated or non-public IP literals, every resolved address public
 * (or in a trusted range), and the socket pinned to the checked address. Redirects are followed by
 * hand and re-validated; the body is streamed and cut at `maxBytes`; HTML becomes Markdown.
 *
 * @throws a {@link WebConfigError} when the options are invalid.
 * @example
 * ```ts
 * const provider = createHttpFetchProvider({ maxBytes: 512 * 1024, sameOriginRedirectsOnly: true });
 * const page = await provider.fetch('https://example.com/');
 * console.log(page.finalUrl, page.truncated, page.content);
 * ```
 */
export function createHttpFetchProvider(options: HttpFetchOptions = {}): WebFetchProvider {
  return buildHttpFetchProvider(options, undefined);
}

/**
 * {@link createHttpFetchProvider} plus the loopback test seam: `seam.loopbackHost` resolves to a
 * loopback address and its certificate is checked against `seam.ca`. For this package's tests
 * (exported from `@spine/web-tools/internal` only; not a semver promise).
 *
 * @throws a {@link WebConfigError} when the options are invalid or the seam is not loopback-only.
 */
export function createHttpFetchProviderWithTestSeam(
  options: HttpFetchOptions,
  seam: UnsafeTestSeam,
): WebFetchProvider {
  return buildHttpFetchProvider(options, checkSeam(seam));
}

function buildHttpFetchProvider(
  options: HttpFetchOptions,
  seam: FetchConfig['seam'],
): WebFetchProvider {
  const id = options.id ?? 'http';
  const trustedRanges: IpRange[] = parseTrustedRanges(options.trustedRanges ?? []);
  const env = options.env ?? process.env;
  const envProxy = options.useEnvProxy
    ? env.HTTPS_PROXY || env.https_proxy || undefined
    : undefined;
  const proxyText = options.proxy ?? envProxy;
  const noProxy = noProxyOf(options, env);
  const maxRedirects = options.maxRedirects ?? DEFAULT_FETCH_LIMITS.maxRedirects;
  if (!Number.isInteger(maxRedirects) || maxRedirects < 0 || maxRedirects > 20) {
    throw new WebConfigError({ detail: 'maxRedirects must be an integer from 0 to 20' });
  }
  const config: FetchConfig = {
    id,
    maxRedirects,
    sameOriginRedirectsOnly: options.sameOriginRedirectsOnly ?? false,
    maxBytes: positive('maxBytes', options.maxBytes, DEFAULT_FETCH_LIMITS.maxBytes),
    maxContentChars: positive(
      'maxContentChars',
      options.maxContentChars,
      DEFAULT_FETCH_LIMITS.maxContentChars,
    ),
    connectTimeoutMs: positive(
      'connectTimeoutMs',
      options.connectTimeoutMs,
      DEFAULT_FETCH_LIMITS.connectTimeoutMs,
    ),
    headersTimeoutMs: positive(
      'headersTimeoutMs',
      options.headersTimeoutMs,
      DEFAULT_FETCH_LIMITS.headersTimeoutMs,
    ),
    bodyTimeoutMs: positive(
      'bodyTimeoutMs',
      options.bodyTimeoutMs,
      DEFAULT_FETCH_LIMITS.bodyTimeoutMs,
    ),
    totalTimeoutMs: positive(
      'totalTimeoutMs',
      options.totalTimeoutMs,
      DEFAULT_FETCH_LIMITS.totalTimeoutMs,
    ),
    maxUrlLength: positive('maxUrlLength', options.maxUrlLength, DEFAULT_MAX_URL_LENGTH),
    trustedRanges,
    resolver: options.resolver ?? systemResolver,
    userAgent: options.userAgent ?? 'spine-web-fetch/0.1',
    ...(proxyText ? { proxy: checkProxy(proxyText) } : {}),
    ...(noProxy && noProxy.entries.length > 0 ? { noProxy } : {}),
    ...(options.onConnect ? { onConnect: options.onConnect } : {}),
    ...(seam ? { seam } : {}),
  };
  const availability = (): ProviderAvailability =>
    options.useEnvProxy && !envProxy && !options.proxy
      ? {
          available: false,
          reason:
            'useEnvProxy is set but HTTPS_PROXY (or https_proxy) is empty; set it or turn useEnvProxy off',
        }
      : { available: true };
  return {
    specificationVersion: 1,
    kind: 'fetch',
    id,
    availability,
    fetch(url: string, fetchOptions?: { signal?: AbortSignal }): Promise<WebFetchResult> {
      return fetchWithPolicy(url, config, fetchOptions?.signal);
    },
  };
}
