import type { LookupAddress } from 'node:dns';
import { Agent, buildConnector, type Dispatcher, ProxyAgent } from 'undici';

/** A connection about to be opened, as reported to `onConnect`. */
export interface ConnectAttempt {
  /** The host name of the URL. */
  hostname: string;
  /** The validated address the socket is pinned to (absent when a proxy resolves the name). */
  address?: string;
  /** The port. */
  port: number;
  /** True when the connection goes through the configured HTTPS proxy. */
  viaProxy: boolean;
}

/** Timeouts and hooks shared by both dispatcher kinds. */
export interface DispatcherSettings {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** Extra trusted CA (the test seam only). */
  ca?: string | Buffer;
  onConnect?: (attempt: ConnectAttempt) => void;
}

type LookupCallback = (
  error: Error | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A dispatcher whose only way to reach `hostname` is the pre-validated `address`: the socket's
 * DNS lookup is replaced by one that answers with that address and refuses any other name, so a
 * second (rebinding) resolution cannot happen.
 */
export function createPinnedDispatcher(
  target: { hostname: string; address: string; family: 4 | 6; port: number },
  settings: DispatcherSettings,
): Dispatcher {
  const lookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    if (hostname.toLowerCase().replace(/\.$/, '') !== target.hostname) {
      callback(
        new Error(`pinned connection for ${target.hostname} was asked to resolve ${hostname}`),
        '',
      );
      return;
    }
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const connector = buildConnector({
    timeout: settings.connectTimeoutMs,
    lookup: lookup as never,
    maxCachedSessions: 0,
    ...(settings.ca ? { ca: settings.ca } : {}),
  });
  return new Agent({
    headersTimeout: settings.headersTimeoutMs,
    bodyTimeout: settings.bodyTimeoutMs,
    connections: 1,
    pipelining: 1,
    connect: (options, callback) => {
      try {
        settings.onConnect?.({
          hostname: target.hostname,
          address: target.address,
          port: target.port,
          viaProxy: false,
        });
      } catch (error) {
        callback(error as Error, null);
        return;
      }
      connector(options, callback);
    },
  });
}

/** A dispatcher that tunnels through an HTTPS proxy, which resolves the host name itself. */
export function createProxyDispatcher(
  proxyUrl: string,
  target: { hostname: string; port: number },
  settings: DispatcherSettings,
): Dispatcher {
  settings.onConnect?.({ hostname: target.hostname, port: target.port, viaProxy: true });
  return new ProxyAgent({
    uri: proxyUrl,
    headersTimeout: settings.headersTimeoutMs,
    bodyTimeout: settings.bodyTimeoutMs,
    proxyTls: { timeout: settings.connectTimeoutMs },
    requestTls: {
      timeout: settings.connectTimeoutMs,
      ...(settings.ca ? { ca: settings.ca } : {}),
    },
  });
}
