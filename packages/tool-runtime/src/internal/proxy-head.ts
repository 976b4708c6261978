import { isIP } from 'node:net';

// The strict request-head parser of the domain proxy. A head is accepted only when every line is
// well formed: `METHOD SP target SP HTTP/1.0|1.1`, then `name: value` header lines (token names,
// no control characters but tab in values, no folded lines, no bare CR or LF), ending in an empty
// line. Anything else is a 400: the proxy never guesses at what a sandboxed command meant.

/** Most bytes a request head may have (request line, headers and the empty line). */
export const MAX_HEAD_BYTES = 16 * 1024;

/** Ports a listed host may be reached on when its entry names no port. */
export const DEFAULT_PORTS: readonly number[] = [80, 443];

/** A parsed proxy request: a CONNECT tunnel or one absolute-URI plain-HTTP request. */
export interface ProxyTarget {
  /** The request method (`CONNECT`, `GET`, …). */
  method: string;
  /** The host named by the request, without IPv6 brackets. */
  host: string;
  /** The port, 1-65535. */
  port: number;
  /** Origin-form path and query of a plain-HTTP request; empty for CONNECT. */
  path: string;
  /** The header lines, as sent (without the request line). */
  headers: string[];
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Visible ASCII and Latin-1 plus space and tab; no other control character, no DEL.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const HOST_NAME =
  /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\.?$/;

function validPort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

function validHost(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false;
  return isIP(host) !== 0 || HOST_NAME.test(host);
}

function connectTarget(target: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):(\d+)$/.exec(target);
  if (!match) return undefined;
  const host = (match[1] ?? match[2]) as string;
  const port = validPort(match[3] as string);
  if (port === undefined || !validHost(host)) return undefined;
  if (match[1] !== undefined && isIP(host) !== 6) return undefined;
  return { host, port };
}

function absoluteTarget(target: string): { host: string; port: number; path: string } | undefined {
  if (!/^http:\/\/[^\s@]+$/i.test(target)) return undefined;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || url.username || url.password) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? validPort(url.port) : 80;
  if (port === undefined || !validHost(host)) return undefined;
  return { host, port, path: `${url.pathname}${url.search}` };
}

function validHeaders(lines: string[]): boolean {
  const seen = new Map<string, number>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) return false;
    const name = line.slice(0, colon);
    if (!TOKEN.test(name) || !FIELD_VALUE.test(line.slice(colon + 1))) return false;
    const lower = name.toLowerCase();
    seen.set(lower, (seen.get(lower) ?? 0) + 1);
  }
  // Request smuggling: one length, never a length and a transfer coding together.
  if ((seen.get('content-length') ?? 0) > 1 || (seen.get('host') ?? 0) > 1) return false;
  return !(seen.has('content-length') && seen.has('transfer-encoding'));
}

/**
 * Parses a complete request head (up to and including the empty line) strictly.
 *
 * @returns The target, or `undefined` for anything malformed, unsupported (a plain request that is
 * not absolute-URI `http:`) or carrying conflicting framing headers.
 */
export function parseProxyHead(head: string): ProxyTarget | undefined {
  if (head.length > MAX_HEAD_BYTES || !head.endsWith('\r\n\r\n')) return undefined;
  const lines = head.slice(0, -4).split('\r\n');
  // A bare CR or LF inside a line, a NUL, or a folded (space-led) header line: refused.
  if (lines.some((line) => /[\r\n\0]/.test(line))) return undefined;
  const [requestLine, ...headers] = lines as [string, ...string[]];
  if (headers.some((line) => /^[ \t]/.test(line))) return undefined;
  const match = /^([A-Z]{1,16}) (\S+) HTTP\/1\.[01]$/.exec(requestLine);
  if (!match || !validHeaders(headers)) return undefined;
  const [, method, target] = match as unknown as [string, string, string];
  if (method === 'CONNECT') {
    const at = connectTarget(target);
    return at && { method, ...at, path: '', headers };
  }
  const at = absoluteTarget(target);
  return at && { method, ...at, headers };
}

interface DomainEntry {
  domain: string;
  port?: number;
}

/** Splits an allowed-domain entry into its host pattern and optional port (`host:port`, `[v6]:port`). */
export function parseDomainEntry(entry: string): DomainEntry {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    const port = bracketed[2] === undefined ? undefined : validPort(bracketed[2]);
    return port === undefined
      ? { domain: bracketed[1] as string }
      : { domain: bracketed[1] as string, port };
  }
  if (isIP(entry) === 6) return { domain: entry };
  const withPort = /^(.+):(\d+)$/.exec(entry);
  const port = withPort ? validPort(withPort[2] as string) : undefined;
  if (withPort && port !== undefined) return { domain: withPort[1] as string, port };
  return { domain: entry };
}

function hostMatches(name: string, pattern: string): boolean {
  const domain = pattern.toLowerCase().replace(/\.$/, '');
  if (domain.startsWith('*.'))
    return name.endsWith(domain.slice(1)) && name.length > domain.length - 1;
  return name === domain;
}

/**
 * True when `host` (and `port`, when given) is allowed by `domains`: an entry matches its host
 * exactly or, as `*.suffix`, every subdomain; an entry without a port allows ports 80 and 443
 * only, `host:port` exactly that port.
 */
export function matchesDomains(host: string, domains: readonly string[], port?: number): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return domains.some((entry) => {
    const parsed = parseDomainEntry(entry);
    if (!hostMatches(name, parsed.domain)) return false;
    if (port === undefined) return true;
    return parsed.port === undefined ? DEFAULT_PORTS.includes(port) : parsed.port === port;
  });
}
