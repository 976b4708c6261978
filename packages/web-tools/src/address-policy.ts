import { WebConfigError } from './errors.js';
import { formatIp, type IpAddress, parseIp } from './ip-address.js';

/** A CIDR range such as `198.18.0.0/15` or `fd00::/8`. */
export interface IpRange {
  /** The network address. */
  ip: IpAddress;
  /** Prefix length in bits. */
  prefix: number;
  /** Text form as given. */
  text: string;
}

/** Why an address is refused, or `undefined` when it is a public unicast address. */
export interface AddressVerdict {
  /** Short machine-friendly reason, for example `private`, `loopback`, `link-local`. */
  reason: string;
  /** Human-readable explanation naming the range. */
  detail: string;
  /** The refused range, for example `private range 10.0.0.0/8 (RFC 1918)`. */
  range: string;
}

/**
 * Parses a CIDR range (`10.0.0.0/8`, `fd00::/8`; a bare address means a single host).
 *
 * @throws a {@link WebConfigError} when the text is not a valid range.
 */
export function parseCidr(text: string): IpRange {
  const [addressText = '', prefixText] = text.trim().split('/');
  const ip = parseIp(addressText);
  const maxPrefix = ip?.version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? maxPrefix : Number(prefixText);
  if (!ip || !Number.isInteger(prefix) || prefix < 0 || prefix > maxPrefix) {
    throw new WebConfigError({
      detail: `"${text}" is not a CIDR range; write it like 198.18.0.0/15 or fd00::/8`,
    });
  }
  return { ip, prefix, text };
}

/** True when `ip` lies inside `range` (same IP version only). */
export function rangeContains(range: IpRange, ip: IpAddress): boolean {
  if (range.ip.version !== ip.version) return false;
  let bits = range.prefix;
  for (let index = 0; bits > 0; index += 1, bits -= 8) {
    const mask = bits >= 8 ? 255 : (255 << (8 - bits)) & 255;
    if ((range.ip.bytes[index]! & mask) !== (ip.bytes[index]! & mask)) return false;
  }
  return true;
}

type RangeRule = [cidr: string, reason: string, label: string];

const IPV4_RULES: RangeRule[] = [
  ['0.0.0.0/8', 'unspecified', '"this network" 0.0.0.0/8'],
  ['10.0.0.0/8', 'private', 'private range 10.0.0.0/8 (RFC 1918)'],
  ['100.64.0.0/10', 'cgnat', 'carrier-grade NAT range 100.64.0.0/10'],
  ['127.0.0.0/8', 'loopback', 'loopback range 127.0.0.0/8'],
  ['169.254.0.0/16', 'link-local', 'link-local range 169.254.0.0/16 (cloud metadata lives here)'],
  ['172.16.0.0/12', 'private', 'private range 172.16.0.0/12 (RFC 1918)'],
  ['192.0.0.0/24', 'reserved', 'IETF protocol assignments 192.0.0.0/24'],
  ['192.0.2.0/24', 'documentation', 'documentation range 192.0.2.0/24'],
  ['192.88.99.0/24', 'reserved', 'deprecated 6to4 relay range 192.88.99.0/24'],
  ['192.168.0.0/16', 'private', 'private range 192.168.0.0/16 (RFC 1918)'],
  [
    '198.18.0.0/15',
    'reserved',
    'benchmarking range 198.18.0.0/15 (also used by fake-IP resolvers)',
  ],
  ['198.51.100.0/24', 'documentation', 'documentation range 198.51.100.0/24'],
  ['203.0.113.0/24', 'documentation', 'documentation range 203.0.113.0/24'],
  ['224.0.0.0/4', 'multicast', 'multicast range 224.0.0.0/4'],
  ['255.255.255.255/32', 'broadcast', 'broadcast address 255.255.255.255'],
  ['240.0.0.0/4', 'reserved', 'reserved range 240.0.0.0/4'],
];

const IPV6_RULES: RangeRule[] = [
  ['::/128', 'unspecified', 'unspecified address ::'],
  ['::1/128', 'loopback', 'loopback address ::1'],
  ['100::/64', 'reserved', 'discard-only range 100::/64'],
  ['2001::/32', 'reserved', 'Teredo range 2001::/32 (hides an IPv4 endpoint)'],
  ['2001::/23', 'reserved', 'IETF protocol assignments 2001::/23'],
  ['2001:db8::/32', 'documentation', 'documentation range 2001:db8::/32'],
  ['3fff::/20', 'documentation', 'documentation range 3fff::/20'],
  ['5f00::/16', 'reserved', 'SRv6 SID range 5f00::/16'],
  ['fc00::/7', 'private', 'unique-local range fc00::/7'],
  ['fe80::/10', 'link-local', 'link-local range fe80::/10'],
  ['fec0::/10', 'private', 'deprecated site-local range fec0::/10'],
  ['ff00::/8', 'multicast', 'multicast range ff00::/8'],
];

const compile = (rules: RangeRule[]): { range: IpRange; reason: string; label: string }[] =>
  rules.map(([cidr, reason, label]) => ({ range: parseCidr(cidr), reason, label }));

const V4 = compile(IPV4_RULES);
const V6 = compile(IPV6_RULES);
const GLOBAL_UNICAST = parseCidr('2000::/3');
/** Loopback, link-local (metadata) and unspecified: no trusted range can open these. */
const NEVER_TRUSTED = [
  '127.0.0.0/8',
  '169.254.0.0/16',
  '0.0.0.0/8',
  '::/128',
  '::1/128',
  'fe80::/10',
].map(parseCidr);

/** IPv6 prefixes that carry an IPv4 address, and where it sits (byte offset). */
const EMBEDDED: { range: IpRange; offset: number; label: string }[] = [
  { range: parseCidr('::ffff:0:0/96'), offset: 12, label: 'IPv4-mapped' },
  { range: parseCidr('::ffff:0:0:0/96'), offset: 12, label: 'IPv4-translated' },
  { range: parseCidr('::/96'), offset: 12, label: 'IPv4-compatible' },
  { range: parseCidr('64:ff9b::/96'), offset: 12, label: 'NAT64' },
  { range: parseCidr('64:ff9b:1::/48'), offset: 12, label: 'local NAT64' },
  { range: parseCidr('2002::/16'), offset: 2, label: '6to4' },
];

/** An IPv4 address found inside an IPv6 address. */
export interface EmbeddedIpv4 {
  /** The IPv4 address. */
  ip: IpAddress;
  /** The embedding: `IPv4-mapped`, `IPv4-compatible`, `IPv4-translated`, `NAT64`, `local NAT64`, `6to4`. */
  label: string;
}

/**
 * The IPv4 address embedded in an IPv6 address (mapped, compatible, translated, NAT64, 6to4),
 * with the name of the embedding, or `undefined`.
 */
export function embeddedIpv4(ip: IpAddress): EmbeddedIpv4 | undefined {
  if (ip.version !== 6) return undefined;
  for (const embedding of EMBEDDED) {
    if (!rangeContains(embedding.range, ip)) continue;
    const bytes = ip.bytes.slice(embedding.offset, embedding.offset + 4);
    return { ip: { version: 4, bytes }, label: embedding.label };
  }
  return undefined;
}

/** Options of {@link isRefusedAddress}. */
export interface AddressPolicyOptions {
  /** Ranges explicitly trusted by the deployment (for example a fake-IP resolver's 198.18.0.0/15). */
  trustedRanges?: readonly IpRange[];
}

/**
 * Decides whether a resolved address may be connected to. Refuses loopback, private (RFC 1918,
 * unique-local), link-local (169.254.169.254 included), CGNAT, multicast, broadcast, unspecified,
 * reserved and documentation ranges, and the IPv4-mapped / compatible / NAT64 / 6to4 forms of all
 * of these. Only `2000::/3` is accepted for IPv6. Trusted ranges win over the rules.
 *
 * @example
 * ```ts
 * isRefusedAddress('169.254.169.254')?.reason; // 'link-local'
 * isRefusedAddress('93.184.216.34');           // undefined
 * ```
 */
export function isRefusedAddress(
  address: string | IpAddress,
  options: AddressPolicyOptions = {},
): AddressVerdict | undefined {
  const ip = typeof address === 'string' ? parseIp(address) : address;
  if (!ip) {
    return {
      reason: 'unparsable',
      detail: `"${String(address)}" is not an IP address`,
      range: 'unparsable',
    };
  }
  const embedded = embeddedIpv4(ip);
  const forms = embedded ? [ip, embedded.ip] : [ip];
  const trusted = options.trustedRanges ?? [];
  const neverTrusted = forms.some((form) =>
    NEVER_TRUSTED.some((range) => rangeContains(range, form)),
  );
  if (!neverTrusted && trusted.some((range) => forms.some((form) => rangeContains(range, form)))) {
    return undefined;
  }
  return classify(ip, embedded);
}

function verdictOf(text: string, rule: { reason: string; label: string }): AddressVerdict {
  return { reason: rule.reason, detail: `${text} is in the ${rule.label}`, range: rule.label };
}

function classify(ip: IpAddress, embedded: EmbeddedIpv4 | undefined): AddressVerdict | undefined {
  const text = formatIp(ip);
  if (ip.version === 4) {
    const rule = V4.find((candidate) => rangeContains(candidate.range, ip));
    return rule ? verdictOf(text, rule) : undefined;
  }
  const rule = V6.find((candidate) => rangeContains(candidate.range, ip));
  if (rule) return verdictOf(text, rule);
  if (embedded) {
    const inner = classify(embedded.ip, undefined);
    if (inner) {
      return {
        reason: inner.reason,
        detail: `${text} is the ${embedded.label} form of ${formatIp(embedded.ip)}, in the ${inner.range}`,
        range: inner.range,
      };
    }
    if (embedded.label !== '6to4') return undefined;
  }
  if (!rangeContains(GLOBAL_UNICAST, ip)) {
    return {
      reason: 'reserved',
      detail: `${text} is outside global unicast 2000::/3`,
      range: 'non-global IPv6',
    };
  }
  return undefined;
}

/**
 * Parses trusted ranges from configuration. A range may not overlap loopback, link-local
 * (metadata) or unspecified addresses, and must be at least a /8 (IPv4) or /16 (IPv6).
 *
 * @throws a {@link WebConfigError} on a malformed or unsafe range.
 */
export function parseTrustedRanges(texts: readonly string[]): IpRange[] {
  return texts.map((text) => {
    const range = parseCidr(text);
    const minimum = range.ip.version === 4 ? 8 : 16;
    if (range.prefix < minimum) {
      throw new WebConfigError({
        detail: `Trusted range ${text} is too wide; use /${minimum} or narrower`,
      });
    }
    const overlap = NEVER_TRUSTED.find(
      (guard) => rangeContains(guard, range.ip) || rangeContains(range, guard.ip),
    );
    if (overlap) {
      throw new WebConfigError({
        detail: `Trusted range ${text} overlaps ${overlap.text}, which can never be trusted; narrow it`,
      });
    }
    return range;
  });
}
