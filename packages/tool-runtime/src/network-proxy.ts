import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, connect, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  MAX_HEAD_BYTES,
  matchesDomains,
  type ProxyTarget,
  parseProxyHead,
} from './internal/proxy-head.js';

/** Options of {@link handleProxyConnection}: which hosts a sandboxed command may reach. */
export interface DomainProxyPolicy {
  /**
   * Hosts allowed: exact names (`example.com`) or `*.example.com` for every subdomain of
   * example.com (not example.com itself), on ports 80 and 443; `example.test:8443` (`[v6]:port`
   * for an IPv6 literal) allows that port instead. Compared case-insensitively; IP literals must
   * be listed exactly.
   */
  domains: readonly string[];
  /**
   * Judges one resolved address: returns why it is refused, or `undefined` to allow it. Default
   * {@link refusedAddressReason} (loopback, private, link-local and metadata, CGNAT, multicast,
   * reserved). The CLI passes web-tools' address policy here.
   */
  checkAddress?: (address: string) => string | undefined;
  /** Resolves a host name to addresses. Default: the system resolver (every address). */
  lookup?: (host: string) => Promise<string[]>;
  /** Milliseconds a connection may take to send its request head. Default `HEAD_TIMEOUT_MS` (10 s). */
  headTimeoutMs?: number;
  /** Called once per request with the host and the outcome, for logs and tests. */
  onDecision?: (decision: {
    host: string;
    port: number;
    allowed: boolean;
    reason?: string;
  }) => void;
}

const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const)
  refused.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 127],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['2002::', 16],
] as const)
  refused.addSubnet(network, prefix, 'ipv6');

/**
 * The built-in address check of the domain proxy: refuses loopback, private (RFC 1918, ULA),
 * link-local (with the 169.254.169.254 metadata endpoint), CGNAT, documentation, benchmark,
 * multicast and reserved ranges, IPv4-mapped, NAT64 and 6to4 IPv6 forms, and anything not an IP.
 * A deliberately small copy of the rule, because tool-runtime may not depend on web-tools; the CLI
 * injects web-tools' full policy instead.
 *
 * @returns Why the address is refused, or `undefined` when it is a public address.
 */
export function refusedAddressReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  // (An IPv4-mapped rule in the BlockList would match every IPv4 address: Node checks IPv4
  // against mapped IPv6 rules too. Mapped addresses are refused by their spelling instead.)
  if (type === 'ipv6' && /^(0{0,4}:){0,5}:?ffff:/i.test(address))
    return `${address} is an IPv4-mapped address`;
  if (refused.check(address, type))
    return `${address} is a loopback, private, link-local or reserved address`;
  if (type === 'ipv6' && !/^[23]/.test(address.replace(/^0+/, '')))
    return `${address} is outside global unicast 2000::/3`;
  return undefined;
}

/**
 * True when `host` is allowed by `domains` (exact, or `*.suffix` for subdomains). With `port`, the
 * entry must allow that port too: an entry without a port allows 80 and 443 only, a `host:port`
 * entry (`[v6]:port` for IPv6) exactly that port.
 */
export function isAllowedHost(host: string, domains: readonly string[], port?: number): boolean {
  return matchesDomains(host, domains, port);
}

async function resolveAllowed(
  host: string,
  port: number,
  policy: DomainProxyPolicy,
): Promise<{ address?: string; reason?: string }> {
  if (!matchesDomains(host, policy.domains))
    return { reason: `${host} is not in the allowed domains` };
  if (!matchesDomains(host, policy.domains, port))
    return {
      reason: `port ${port} of ${host} is not allowed (80 and 443 only, unless listed as ${host}:${port})`,
    };
  const lookup =
    policy.lookup ??
    (async (name: string) => (await dnsLookup(name, { all: true })).map((entry) => entry.address));
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await lookup(host);
  } catch (error) {
    return { reason: `${host} does not resolve (${(error as Error).message})` };
  }
  if (addresses.length === 0) return { reason: `${host} has no address` };
  const check = policy.checkAddress ?? refusedAddressReason;
  // Every address must pass: a name that also resolves to a private address is refused outright.
  for (const address of addresses) {
    const why = check(address);
    if (why) return { reason: `${host} resolves to a refused address: ${why}` };
  }
  return { address: addresses[0] as string };
}

/** How long a connection may take to send its complete request head. */
export const HEAD_TIMEOUT_MS = 10_000;

// Answers and closes the connection both ways: what the command keeps sending is dropped, never
// queued (the channel's flow-control window stops the forwarder once nobody reads).
function refuse(client: Duplex, status: string, reason: string): void {
  const body = `Refused by the Spine sandbox proxy: ${reason}\n`;
  client.pause();
  const close = setTimeout(() => client.destroy(), 1000);
  close.unref();
  client.end(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\nX-Spine-Refused: ${reason.replace(/[\r\n]/g, ' ')}\r\n\r\n${body}`,
    () => {
      clearTimeout(close);
      client.destroy();
    },
  );
}

/**
 * Serves one proxy client connection (a CONNECT tunnel, or one plain-HTTP request with an
 * absolute URI): reads a request head of at most 16 KiB within 10 s (else 431 or 408), parses it
 * strictly (else 400), checks host and port against the allowed domains, resolves the host, checks
 * every address, then connects to the first address (pinned: no second resolution) and relays
 * bytes with backpressure both ways. A refusal (403 naming the reason) closes the connection both
 * ways.
 */
export function handleProxyConnection(client: Duplex, policy: DomainProxyPolicy): void {
  let head: Buffer = Buffer.alloc(0);
  const timer = setTimeout(() => {
    stop();
    refuse(client, '408 Request Timeout', 'no complete request head in time');
  }, policy.headTimeoutMs ?? HEAD_TIMEOUT_MS);
  timer.unref();
  const stop = (): void => {
    clearTimeout(timer);
    client.off('data', onData);
    client.pause();
  };
  const onData = (chunk: Buffer): void => {
    head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if ((end < 0 && head.length >= MAX_HEAD_BYTES) || end + 4 > MAX_HEAD_BYTES) {
      stop();
      refuse(client, '431 Request Header Fields Too Large', 'request head too large');
      return;
    }
    if (end < 0) return;
    stop();
    forward(client, head.subarray(0, end + 4), head.subarray(end + 4), policy).catch((error) =>
      refuse(client, '502 Bad Gateway', `proxy error: ${(error as Error).message}`),
    );
  };
  client.on('data', onData);
  client.on('error', () => undefined);
  client.on('close', () => clearTimeout(timer));
}

async function forward(
  client: Duplex,
  headBytes: Buffer,
  rest: Buffer,
  policy: DomainProxyPolicy,
): Promise<void> {
  const target = parseProxyHead(headBytes.toString('latin1'));
  if (!target)
    return refuse(
      client,
      '400 Bad Request',
      'not a well-formed CONNECT or absolute-URI HTTP request',
    );
  const { address, reason } = await resolveAllowed(target.host, target.port, policy);
  policy.onDecision?.({
    host: target.host,
    port: target.port,
    allowed: address !== undefined,
    ...(reason ? { reason } : {}),
  });
  if (!address) return refuse(client, '403 Forbidden', reason ?? 'refused');
  if (client.destroyed) return;
  relay(client, connect({ host: address, port: target.port }), target, rest);
}

// Relays one allowed connection. `pipe` pauses each side while the other's buffer is full (the
// channel's own buffer holds at most one flow-control window), so neither direction queues more.
function relay(client: Duplex, upstream: Socket, target: ProxyTarget, rest: Buffer): void {
  const tunnel = target.method === 'CONNECT';
  upstream.setTimeout(HEAD_TIMEOUT_MS, () => upstream.destroy(new Error('connect timeout')));
  upstream.on('error', () => {
    if (tunnel || client.writableEnded) client.destroy();
    else refuse(client, '502 Bad Gateway', `cannot reach ${target.host}:${target.port}`);
  });
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => {
    if (client.writableFinished) client.destroy();
    else client.once('finish', () => client.destroy());
  });
  upstream.on('connect', () => {
    upstream.setTimeout(0);
    if (tunnel) client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    else {
      // Origin-form request line; one request per connection.
      const lines = target.headers.filter(
        (line) => !/^(proxy-connection|connection|keep-alive):/i.test(line),
      );
      upstream.write(
        `${target.method} ${target.path || '/'} HTTP/1.1\r\n${lines.map((line) => `${line}\r\n`).join('')}Connection: close\r\n\r\n`,
        'latin1',
      );
    }
    if (rest.length > 0) upstream.write(rest);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  });
}
