import { type AddressPolicyOptions, isRefusedAddress } from './address-policy.js';
import { UrlRefusedError } from './errors.js';
import { type HostLiteral, parseHostLiteral } from './ip-address.js';

/** Longest URL accepted, in characters. */
export const DEFAULT_MAX_URL_LENGTH = 4096;

/** A URL that passed every check that can be made without DNS. */
export interface CheckedUrl {
  /** The parsed URL. */
  url: URL;
  /** The host name to resolve (lower case, no brackets, no trailing dot). */
  hostname: string;
  /** Set when the host is an IP literal (already checked against the address policy). */
  literal?: HostLiteral;
}

/** Options of {@link checkUrl}. */
export interface UrlPolicyOptions extends AddressPolicyOptions {
  /** Longest URL accepted. Default {@link DEFAULT_MAX_URL_LENGTH}. */
  maxUrlLength?: number;
  /** Host names allowed even though they would be refused (the test seam only). */
  allowedHosts?: readonly string[];
}

const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa', '.localdomain'];

function refuse(url: string, reason: string, detail: string): never {
  throw new UrlRefusedError({
    url: url.length > 200 ? `${url.slice(0, 200)}…` : url,
    reason,
    detail,
  });
}

/** Reads the host exactly as written in `https://…`, before URL normalisation. */
function rawHostOf(input: string): string {
  const rest = input.slice('https://'.length);
  const end = rest.search(/[/?#\\]/);
  const authority = end === -1 ? rest : rest.slice(0, end);
  if (authority.includes('@'))
    refuse(input, 'credentials', 'URLs with credentials (user@ or user:pass@) are not allowed');
  if (authority.startsWith('[')) return authority.slice(0, authority.indexOf(']') + 1);
  const colon = authority.lastIndexOf(':');
  return colon === -1 ? authority : authority.slice(0, colon);
}

/**
 * Checks a URL against everything that needs no DNS: https only, no credentials, no obfuscated
 * or non-public IP literal hosts, no local-only or single-label names.
 *
 * @throws a {@link UrlRefusedError} when the URL is refused.
 * @example
 * ```ts
 * checkUrl('https://0x7f.1/'); // throws UrlRefusedError (hex IP literal)
 * ```
 */
export function checkUrl(input: string, options: UrlPolicyOptions = {}): CheckedUrl {
  if (typeof input !== 'string' || input === '')
    refuse(String(input), 'malformed', 'the URL is empty');
  if (input.length > (options.maxUrlLength ?? DEFAULT_MAX_URL_LENGTH)) {
    refuse(
      input,
      'too-long',
      `the URL is longer than ${options.maxUrlLength ?? DEFAULT_MAX_URL_LENGTH} characters`,
    );
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse.
  if (/[\u0000-\u0020\u007f-\u009f]/.test(input)) {
    refuse(input, 'malformed', 'the URL contains whitespace or control characters');
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(input)?.[1]?.toLowerCase();
  if (scheme !== 'https') {
    refuse(
      input,
      'scheme',
      `the scheme ${scheme ? `"${scheme}:"` : '(none)'} is not allowed; only https: is`,
    );
  }
  if (!/^https:\/\//i.test(input)) refuse(input, 'malformed', 'write the URL as https://host/path');
  const rawHost = rawHostOf(input);
  let url: URL;
  try {
    url = new URL(input);
  } catch (error) {
    refuse(input, 'malformed', `it is not a valid URL (${(error as Error).message})`);
  }
  if (url.username !== '' || url.password !== '') {
    refuse(input, 'credentials', 'URLs with credentials (user@ or user:pass@) are not allowed');
  }
  if (rawHost.includes('%'))
    refuse(input, 'obfuscated-host', 'percent-encoded host names are not allowed');
  let hostname = url.hostname.toLowerCase();
  if (hostname.endsWith('.')) hostname = hostname.slice(0, -1);
  if (hostname === '') refuse(input, 'malformed', 'the URL has no host');
  if (options.allowedHosts?.includes(hostname)) return { url, hostname };
  const literal = parseHostLiteral(hostname);
  if (literal) {
    const written = parseHostLiteral(rawHost.toLowerCase());
    if (written?.form !== undefined && written.form !== 'canonical') {
      refuse(
        input,
        'ip-literal-form',
        `the host is an IP literal written in ${written.form} form (${written.address})`,
      );
    }
    if (!written || written.address !== literal.address) {
      refuse(
        input,
        'ip-literal-form',
        `the host is written as an obfuscated IP literal (${literal.address})`,
      );
    }
    const verdict = isRefusedAddress(literal.ip, options);
    if (verdict) refuse(input, verdict.reason, verdict.detail);
    return { url, hostname: literal.address, literal };
  }
  if (hostname === 'localhost' || LOCAL_SUFFIXES.some((suffix) => hostname.endsWith(suffix))) {
    refuse(input, 'local-name', `"${hostname}" names a local-only host`);
  }
  if (!hostname.includes('.')) {
    refuse(
      input,
      'single-label',
      `"${hostname}" is a single-label name that may resolve inside the local network`,
    );
  }
  return { url, hostname };
}
