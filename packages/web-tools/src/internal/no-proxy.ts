import { domainToASCII } from 'node:url';
import { type IpRange, parseCidr, rangeContains } from '../address-policy.js';
import { parseHostLiteral, parseIp } from '../ip-address.js';

/**
 * One parsed NO_PROXY entry. `all` is the lone `*`; `name` matches a host name and its
 * subdomains; `address` matches IP-literal hosts inside a CIDR range (a bare address is a /32 or
 * /128). `port`, when set, restricts the entry to that port.
 */
export type NoProxyEntry =
  | { kind: 'all' }
  | { kind: 'name'; name: string; port?: number }
  | { kind: 'address'; range: IpRange; port?: number };

/** A parsed NO_PROXY list, with the entries that could not be read. */
export interface NoProxyList {
  /** The usable entries, in the order written. */
  entries: NoProxyEntry[];
  /** Entries that were not understood (ignored when the list came from the environment). */
  invalid: string[];
}

const LABEL = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/;

function parsePort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65_535 ? port : undefined;
}

function withPort<T extends NoProxyEntry>(entry: T, port: number | undefined): T {
  return port === undefined ? entry : { ...entry, port };
}

/** Splits `host[:port]`, `[v6][:port]` or a bare IPv6 address / range (no port possible). */
function splitPort(text: string): { host: string; port?: number } | undefined {
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close === -1) return undefined;
    const rest = text.slice(close + 1);
    const host = text.slice(1, close);
    if (rest === '') return { host };
    const port = rest.startsWith(':') ? parsePort(rest.slice(1)) : undefined;
    return port === undefined ? undefined : { host, port };
  }
  const colons = text.split(':').length - 1;
  if (colons !== 1) return { host: text };
  const [host = '', portText = ''] = text.split(':');
  const port = parsePort(portText);
  return port === undefined ? undefined : { host, port };
}

function parseAddress(host: string, port: number | undefined): NoProxyEntry | undefined {
  const [address = '', prefix] = host.split('/');
  if (!parseIp(address)) return undefined;
  if (prefix !== undefined && port !== undefined) return undefined;
  try {
    return withPort({ kind: 'address', range: parseCidr(host) }, port);
  } catch {
    return undefined;
  }
}

function parseName(host: string, port: number | undefined): NoProxyEntry | undefined {
  let name = host.startsWith('*.') ? host.slice(2) : host.startsWith('.') ? host.slice(1) : host;
  if (name.endsWith('.')) name = name.slice(0, -1);
  const ascii = domainToASCII(name);
  if (ascii === '' || !ascii.split('.').every((label) => LABEL.test(label))) return undefined;
  // Digits-only names are IP literals in some other spelling (`127.1`, `10.0.0`); refusing them
  // keeps a name entry from ever suffix-matching an address such as 10.0.0.1.
  if (parseHostLiteral(ascii)) return undefined;
  return withPort({ kind: 'name', name: ascii }, port);
}

function parseEntry(text: string): NoProxyEntry | undefined {
  if (text === '*') return { kind: 'all' };
  const split = splitPort(text.toLowerCase());
  if (!split || split.host === '') return undefined;
  if (text.startsWith('[') && !split.host.includes(':')) return undefined;
  if (split.host.includes(':') || /^[\d.]+(\/\d+)?$/.test(split.host)) {
    return parseAddress(split.host, split.port);
  }
  if (split.host.includes('/')) return undefined;
  return parseName(split.host, split.port);
}

/**
 * Parses a NO_PROXY list the way curl documents it: entries separated by commas (and
 * whitespace); `*` alone bypasses the proxy for every host; a name matches itself and its
 * subdomains (a leading `.` or `*.` changes nothing); IP addresses match exactly and CIDR ranges
 * (`10.0.0.0/8`, `fd00::/8`) match IP-literal hosts; `:port` (`[v6]:port` for IPv6) restricts an
 * entry to one port. Matching is case-insensitive. Unreadable entries land in `invalid`.
 */
export function parseNoProxy(text: string | readonly string[]): NoProxyList {
  const parts = (typeof text === 'string' ? [text] : text).flatMap((part) => part.split(/[\s,]+/));
  const list: NoProxyList = { entries: [], invalid: [] };
  for (const part of parts) {
    if (part === '') continue;
    const entry = parseEntry(part);
    if (entry) list.entries.push(entry);
    else list.invalid.push(part);
  }
  return list;
}

/**
 * True when a request to `hostname:port` must skip the proxy. `hostname` is the checked host:
 * lower case, no trailing dot, IP literals in canonical form without brackets. Name entries
 * never match IP literals and address entries never match names.
 */
export function bypassesProxy(list: NoProxyList, hostname: string, port: number): boolean {
  const ip = parseIp(hostname);
  return list.entries.some((entry) => {
    if (entry.kind === 'all') return true;
    if (entry.port !== undefined && entry.port !== port) return false;
    if (entry.kind === 'address') return ip !== undefined && rangeContains(entry.range, ip);
    if (ip) return false;
    return hostname === entry.name || hostname.endsWith(`.${entry.name}`);
  });
}
