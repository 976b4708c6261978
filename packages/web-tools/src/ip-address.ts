/** An IP address as raw bytes: 4 for IPv4, 16 for IPv6. */
export interface IpAddress {
  /** 4 or 6. */
  version: 4 | 6;
  /** Network-order bytes. */
  bytes: Uint8Array;
}

/** How an IP literal host was written. Anything but `canonical` is an obfuscation and is refused. */
export type HostLiteralForm = 'canonical' | 'decimal' | 'octal' | 'hex' | 'shortened' | 'mixed';

/** A host that is an IP literal, with its canonical text and the form it was written in. */
export interface HostLiteral {
  /** The parsed address. */
  ip: IpAddress;
  /** Canonical text (dotted quad, or compressed IPv6 without brackets). */
  address: string;
  /** How the literal was written. */
  form: HostLiteralForm;
}

const DECIMAL = /^[0-9]+$/;
const OCTAL = /^0[0-7]*$/;
const HEX = /^0[xX][0-9a-fA-F]*$/;

type PartForm = 'decimal' | 'octal' | 'hex';

function parseIpv4Part(part: string): { value: number; form: PartForm } | undefined {
  if (HEX.test(part))
    return { value: part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16), form: 'hex' };
  if (part.length > 1 && part.startsWith('0')) {
    return OCTAL.test(part) ? { value: Number.parseInt(part, 8), form: 'octal' } : undefined;
  }
  if (DECIMAL.test(part)) return { value: Number.parseInt(part, 10), form: 'decimal' };
  return undefined;
}

/**
 * Parses an IPv4 host the way URL parsers and `inet_aton` do: one to four parts, each decimal,
 * octal (leading 0) or hex (0x), the last part filling the remaining bytes.
 */
function parseIpv4Host(host: string): HostLiteral | undefined {
  let text = host;
  if (text.endsWith('.')) text = text.slice(0, -1);
  const parts = text.split('.');
  if (parts.length < 1 || parts.length > 4 || parts.some((part) => part === '')) return undefined;
  const parsed = parts.map(parseIpv4Part);
  if (parsed.some((part) => part === undefined)) return undefined;
  const values = parsed as { value: number; form: PartForm }[];
  let value = 0;
  for (let index = 0; index < values.length - 1; index += 1) {
    const part = values[index]!.value;
    if (part > 255) return undefined;
    value = value * 256 + part;
  }
  const last = values[values.length - 1]!.value;
  const lastBytes = 5 - values.length;
  if (!Number.isSafeInteger(last) || last >= 256 ** lastBytes) return undefined;
  value = value * 256 ** lastBytes + last;
  const bytes = new Uint8Array([
    value >>> 24,
    (value >>> 16) & 255,
    (value >>> 8) & 255,
    value & 255,
  ]);
  const ip: IpAddress = { version: 4, bytes };
  const address = formatIp(ip);
  const forms = new Set(values.map((part) => part.form));
  if (forms.size > 1) forms.delete('decimal');
  let form: HostLiteralForm;
  if (address === host) form = 'canonical';
  else if (forms.size > 1) form = 'mixed';
  else if (forms.has('hex')) form = 'hex';
  else if (forms.has('octal')) form = 'octal';
  else if (values.length === 1) form = 'decimal';
  else form = 'shortened';
  return { ip, address, form };
}

function parseIpv6(text: string): Uint8Array | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return undefined;
  let head = text;
  const tail: number[] = [];
  const lastColon = head.lastIndexOf(':');
  if (head.includes('.')) {
    const v4 = head.slice(lastColon + 1);
    if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(v4)) return undefined;
    const octets = v4.split('.').map(Number);
    if (octets.some((octet) => octet > 255)) return undefined;
    tail.push(((octets[0]! << 8) | octets[1]!) >>> 0, ((octets[2]! << 8) | octets[3]!) >>> 0);
    head = head.slice(0, lastColon + 1);
    if (!head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const toGroups = (half: string): number[] | undefined => {
    if (half === '') return [];
    const groups = half.split(':');
    if (groups.some((group) => !/^[0-9a-fA-F]{1,4}$/.test(group))) return undefined;
    return groups.map((group) => Number.parseInt(group, 16));
  };
  const left = toGroups(halves[0]!);
  const right = halves.length === 2 ? toGroups(halves[1]!) : [];
  if (left === undefined || right === undefined) return undefined;
  const known = left.length + right.length + tail.length;
  let groups: number[];
  if (halves.length === 2) {
    if (known > 7) return undefined;
    groups = [...left, ...new Array<number>(8 - known).fill(0), ...right, ...tail];
  } else {
    if (known !== 8) return undefined;
    groups = [...left, ...tail];
  }
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 255;
  });
  return bytes;
}

/**
 * Parses an IP address in its usual text form (dotted quad, or IPv6 with optional brackets).
 * Returns `undefined` for anything else, including obfuscated IPv4 forms.
 *
 * @example
 * ```ts
 * parseIp('::ffff:10.0.0.1')?.version; // 6
 * ```
 */
export function parseIp(text: string): IpAddress | undefined {
  const inner = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(inner)) {
    const literal = parseIpv4Host(inner);
    return literal?.form === 'canonical' ? literal.ip : undefined;
  }
  if (!inner.includes(':')) return undefined;
  const bytes = parseIpv6(inner);
  return bytes ? { version: 6, bytes } : undefined;
}

/** Formats an address as canonical text (dotted quad, or compressed lower-case IPv6). */
export function formatIp(ip: IpAddress): string {
  if (ip.version === 4) return Array.from(ip.bytes).join('.');
  const groups: number[] = [];
  for (let index = 0; index < 16; index += 2)
    groups.push((ip.bytes[index]! << 8) | ip.bytes[index + 1]!);
  let bestStart = -1;
  let bestLength = 0;
  for (let start = 0; start < 8; start += 1) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length += 1;
    if (length > bestLength && length > 1) {
      bestStart = start;
      bestLength = length;
    }
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/**
 * Reads a URL host (as written, before any normalisation) as an IP literal. IPv4 hosts are read
 * the permissive way URL parsers and `inet_aton` read them (decimal `2130706433`, octal `0177.1`,
 * hex `0x7f.0.0.1`, shortened `127.1`), so the form can be reported and refused.
 * Returns `undefined` when the host is a domain name.
 *
 * @example
 * ```ts
 * parseHostLiteral('0x7f.1'); // { address: '127.0.0.1', form: 'hex', … }
 * ```
 */
export function parseHostLiteral(host: string): HostLiteral | undefined {
  if (host.startsWith('[')) {
    if (!host.endsWith(']')) return undefined;
    const bytes = parseIpv6(host.slice(1, -1));
    if (!bytes) return undefined;
    const ip: IpAddress = { version: 6, bytes };
    return { ip, address: formatIp(ip), form: 'canonical' };
  }
  if (host.includes(':')) {
    const bytes = parseIpv6(host);
    if (!bytes) return undefined;
    const ip: IpAddress = { version: 6, bytes };
    return { ip, address: formatIp(ip), form: 'canonical' };
  }
  return parseIpv4Host(host);
}
