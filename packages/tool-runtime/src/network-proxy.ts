import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, connect, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** Options of {@link handleProxyConnection}: which hosts a sandboxed command may reach. */
export interface DomainProxyPolicy {
  /**
   * Hosts allowed: exact names (`registry.npmjs.org`) or `*.example.com` for every subdomain of
   * example.com (not example.com itself). Compared case-insensitively; IP literals must be listed
   * exactly.
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

/** True when `host` is allowed by `domains` (exact, or `*.suffix` for subdomains). */
export function isAllowedHost(host: string, domains: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return domains.some((entry) => {
    const domain = entry.toLowerCase().replace(/\.$/, '');
    if (domain.startsWith('*.'))
      return name.endsWith(domain.slice(1)) && name.length > domain.length - 1;
    return name === domain;
  });
}

const MAX_HEAD = 16 * 1024;

function parseTarget(
  head: string,
): { method: string; host: string; port: number; path: string } | undefined {
  const [requestLine] = head.split('\r\n');
  const match = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(requestLine ?? '');
  if (!match) return undefined;
  const [, method, target] = match as unknown as [string, string, string];
  if (method === 'CONNECT') {
    const at = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(target);
    if (!at) return undefined;
    const port = Number(at[2]);
    if (port < 1 || port > 65535) return undefined;
    return { method, host: at[1] as string, port, path: '' };
  }
  try {
    const url = new URL(target);
    if (url.protocol !== 'http:') return undefined;
    const port = url.port ? Number(url.port) : 80;
    return {
      method,
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port,
      path: `${url.pathname}${url.search}`,
    };
  } catch {
    return undefined;
  }
}

async function resolveAllowed(
  host: string,
  policy: DomainProxyPolicy,
): Promise<{ address?: string; reason?: string }> {
  if (!isAllowedHost(host, policy.domains))
    return { reason: `${host} is not in the allowed domains` };
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

function refuse(client: Duplex, status: string, reason: string): void {
  const body = `Refused by the Spine sandbox proxy: ${reason}\n`;
  client.end(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\nX-Spine-Refused: ${reason.replace(/[\r\n]/g, ' ')}\r\n\r\n${body}`,
  );
}

/**
 * Serves one proxy client connection (a CONNECT tunnel, or one plain-HTTP request with an
 * absolute URI): checks the host against the allowed domains, resolves it, checks every address,
 * then connects to the first address (pinned: no second resolution) and relays bytes. Anything
 * else gets a 403 (or 400 for a malformed request) naming the reason.
 */
export function handleProxyConnection(client: Duplex, policy: DomainProxyPolicy): void {
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer): void => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (head.length > MAX_HEAD)
        refuse(client, '431 Request Header Fields Too Large', 'request head too large');
      return;
    }
    client.off('data', onData);
    client.pause();
    forward(client, head.subarray(0, end + 4), head.subarray(end + 4), policy).catch((error) =>
      refuse(client, '502 Bad Gateway', `proxy error: ${(error as Error).message}`),
    );
  };
  client.on('data', onData);
  client.on('error', () => undefined);
}

async function forward(
  client: Duplex,
  headBytes: Buffer,
  rest: Buffer,
  policy: DomainProxyPolicy,
): Promise<void> {
  const head = headBytes.toString('latin1');
  const target = parseTarget(head);
  if (!target)
    return refuse(client, '400 Bad Request', 'not a CONNECT or absolute-URI HTTP request');
  const { address, reason } = await resolveAllowed(target.host, policy);
  policy.onDecision?.({
    host: target.host,
    port: target.port,
    allowed: address !== undefined,
    ...(reason ? { reason } : {}),
  });
  if (!address) return refuse(client, '403 Forbidden', reason ?? 'refused');
  const upstream: Socket = connect({ host: address, port: target.port });
  upstream.on('error', () => {
    if (target.method === 'CONNECT') client.destroy();
    else refuse(client, '502 Bad Gateway', `cannot reach ${target.host}:${target.port}`);
  });
  client.on('close', () => upstream.destroy());
  upstream.on('connect', () => {
    if (target.method === 'CONNECT') client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    else {
      // Origin-form request line; one request per connection.
      const lines = head
        .split('\r\n')
        .slice(1)
        .filter((line) => line && !/^(proxy-connection|connection):/i.test(line));
      upstream.write(
        `${target.method} ${target.path || '/'} HTTP/1.1\r\n${lines.join('\r\n')}\r\nConnection: close\r\n\r\n`,
        'latin1',
      );
    }
    if (rest.length > 0) upstream.write(rest);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  });
}
