import type { HttpFetchOptions } from '../src/index.js';

/** One hostile input: a URL, optionally with what the (fake) resolver answers for its host. */
export interface HostileCase {
  /** What the attack is. */
  why: string;
  /** The URL the model asks for. */
  url: string;
  /** Resolver answers by host name; absent hosts do not resolve. */
  answers?: Record<string, string[]>;
  /** Extra provider options (trusted ranges …). */
  options?: HttpFetchOptions;
}

const literal = (why: string, url: string): HostileCase => ({ why, url });
const resolving = (why: string, addresses: string[], options?: HttpFetchOptions): HostileCase => ({
  why,
  url: 'https://innocent.example/path',
  answers: { 'innocent.example': addresses },
  ...(options ? { options } : {}),
});

/**
 * Hostile URLs and resolver answers. Every one must be refused with `URL_REFUSED` before any
 * connection is attempted. Shared by the corpus test and the guard benchmark.
 */
export const HOSTILE_CORPUS: HostileCase[] = [
  // Schemes and URL shape
  literal('plain http', 'http://example.com/'),
  literal('ftp', 'ftp://example.com/file'),
  literal('file', 'file:///etc/passwd'),
  literal('data', 'data:text/html,<script>alert(1)</script>'),
  literal('gopher', 'gopher://example.com:70/_stats'),
  literal('javascript', 'javascript:alert(1)'),
  literal('websocket', 'wss://example.com/socket'),
  literal('no scheme', 'example.com/path'),
  literal('scheme without slashes', 'https:example.com'),
  literal('backslash authority', 'https:\\\\example.com\\path'),
  literal('tab inside', 'https://exa\tmple.com/'),
  literal('leading space', ' https://example.com/'),
  literal('newline inside', 'https://example.com/\nHost: evil'),
  literal('too long', `https://example.com/${'a'.repeat(5000)}`),
  // Credentials
  literal('user and password', 'https://user:pass@example.com/'),
  literal('user only', 'https://user@example.com/'),
  literal('empty credentials', 'https://:@example.com/'),
  literal('credentials hiding the host', 'https://example.com@169.254.169.254/'),
  // Local-only names
  literal('localhost', 'https://localhost/'),
  literal('localhost with a dot', 'https://LOCALHOST./'),
  literal('localhost subdomain', 'https://app.localhost/'),
  literal('mDNS name', 'https://printer.local/'),
  literal('cloud metadata name', 'https://metadata.google.internal/computeMetadata/v1/'),
  literal('single-label name', 'https://metadata/'),
  literal('home.arpa name', 'https://router.home.arpa/'),
  // IPv4 literals, canonical and obfuscated
  literal('loopback', 'https://127.0.0.1/'),
  literal('loopback elsewhere in 127/8', 'https://127.53.1.2/'),
  literal('shortened loopback', 'https://127.1/'),
  literal('decimal loopback', 'https://2130706433/'),
  literal('hex loopback', 'https://0x7f000001/'),
  literal('octal loopback', 'https://0177.0.0.1/'),
  literal('mixed hex loopback', 'https://0x7f.0.0.1/'),
  literal('octal single number', 'https://017700000001/'),
  literal('trailing dot loopback', 'https://127.0.0.1./'),
  literal('percent-encoded loopback', 'https://%31%32%37.0.0.1/'),
  literal('full-width digits', 'https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/'),
  literal('decimal zero', 'https://0/'),
  literal('unspecified', 'https://0.0.0.0/'),
  literal('hex public address', 'https://0x08080808/'),
  literal('decimal public address', 'https://134744072/'),
  literal('RFC 1918 10/8', 'https://10.0.0.1/'),
  literal('RFC 1918 172.16/12', 'https://172.16.0.1/'),
  literal('RFC 1918 172.16/12 top', 'https://172.31.255.255/'),
  literal('RFC 1918 192.168/16', 'https://192.168.1.1/'),
  literal('cloud metadata', 'https://169.254.169.254/latest/meta-data/'),
  literal('CGNAT', 'https://100.64.0.1/'),
  literal('CGNAT top', 'https://100.127.255.254/'),
  literal('multicast', 'https://224.0.0.1/'),
  literal('broadcast', 'https://255.255.255.255/'),
  literal('reserved 240/4', 'https://240.0.0.1/'),
  literal('TEST-NET-1', 'https://192.0.2.1/'),
  literal('TEST-NET-2', 'https://198.51.100.7/'),
  literal('TEST-NET-3', 'https://203.0.113.9/'),
  literal('benchmarking / fake-IP', 'https://198.18.0.1/'),
  literal('IETF protocol assignments', 'https://192.0.0.8/'),
  literal('hex in every part', 'https://0x7f.0x0.0x0.0x1/'),
  literal('octal with padding', 'https://0000177.0.0.1/'),
  literal('zero-padded octets', 'https://127.000.000.001/'),
  literal('Alibaba metadata (CGNAT)', 'https://100.100.100.200/latest/meta-data/'),
  literal('Oracle metadata', 'https://192.0.0.192/'),
  literal('AWS metadata name', 'https://instance-data/latest/'),
  // IPv6 literals
  literal('IPv6 loopback', 'https://[::1]/'),
  literal('IPv6 unspecified', 'https://[::]/'),
  literal('IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/'),
  literal('IPv4-mapped loopback in hex', 'https://[::ffff:7f00:1]/'),
  literal('IPv4-mapped metadata', 'https://[::ffff:169.254.169.254]/'),
  literal('IPv4-mapped private, long form', 'https://[0:0:0:0:0:ffff:192.168.0.1]/'),
  literal('IPv4-compatible loopback', 'https://[::127.0.0.1]/'),
  literal('NAT64 of private', 'https://[64:ff9b::10.0.0.1]/'),
  literal('NAT64 of metadata', 'https://[64:ff9b::a9fe:a9fe]/'),
  literal('unique-local', 'https://[fc00::1]/'),
  literal('unique-local fd', 'https://[fd12:3456::1]/'),
  literal('IPv6 link-local', 'https://[fe80::1]/'),
  literal('IPv6 multicast', 'https://[ff02::1]/'),
  literal('IPv6 documentation', 'https://[2001:db8::1]/'),
  literal('6to4 of loopback', 'https://[2002:7f00:1::]/'),
  literal('Teredo', 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/'),
  literal('discard prefix', 'https://[100::1]/'),
  literal('site-local', 'https://[fec0::1]/'),
  literal('IPv6 loopback, long form', 'https://[0:0:0:0:0:0:0:1]/'),
  literal('IPv4-mapped CGNAT', 'https://[::ffff:100.64.0.1]/'),
  literal('NAT64 of loopback', 'https://[64:ff9b::7f00:1]/'),
  literal('AWS IPv6 metadata', 'https://[fd00:ec2::254]/latest/meta-data/'),
  literal('IPv4-mapped loopback with a port', 'https://[::ffff:127.0.0.1]:8443/'),
  // Resolver answers
  resolving('name resolving to loopback', ['127.0.0.1']),
  resolving('name resolving to 10/8', ['10.0.0.5']),
  resolving('name resolving to 172.16/12', ['172.20.0.1']),
  resolving('name resolving to 192.168/16', ['192.168.0.1']),
  resolving('name resolving to metadata', ['169.254.169.254']),
  resolving('name resolving to CGNAT', ['100.64.1.1']),
  resolving('name resolving to unspecified', ['0.0.0.0']),
  resolving('name resolving to multicast', ['224.0.0.251']),
  resolving('name resolving to broadcast', ['255.255.255.255']),
  resolving('name resolving to IPv6 loopback', ['::1']),
  resolving('name resolving to IPv4-mapped private', ['::ffff:10.0.0.1']),
  resolving('name resolving to unique-local', ['fd00::1']),
  resolving('name resolving to link-local with zone', ['fe80::1%eth0']),
  resolving('name resolving to NAT64 of private', ['64:ff9b::c0a8:101']),
  resolving('name resolving to IPv6 documentation', ['2001:db8::5']),
  resolving('name resolving to fake-IP range, not trusted', ['198.18.0.5']),
  resolving('name resolving to garbage', ['not-an-ip']),
  resolving('rebinding: public then private', ['93.184.216.34', '10.0.0.1']),
  resolving('rebinding: private then public', ['192.168.1.10', '93.184.216.34']),
  resolving('rebinding: IPv6 public then loopback', ['2606:2800:220:1:248:1893:25c8:1946', '::1']),
  resolving('trusted fake-IP range does not open loopback', ['127.0.0.1'], {
    trustedRanges: ['198.18.0.0/15'],
  }),
  resolving('trusted range does not open mapped loopback', ['::ffff:127.0.0.1'], {
    trustedRanges: ['198.18.0.0/15'],
  }),
  resolving('trusted range does not open metadata', ['169.254.169.254'], {
    trustedRanges: ['10.0.0.0/8'],
  }),
  {
    why: 'wildcard DNS naming loopback',
    url: 'https://127.0.0.1.nip.io/',
    answers: { '127.0.0.1.nip.io': ['127.0.0.1'] },
  },
  {
    why: 'wildcard DNS naming metadata',
    url: 'https://169.254.169.254.nip.io/latest/',
    answers: { '169.254.169.254.nip.io': ['169.254.169.254'] },
  },
  {
    why: 'public name for loopback',
    url: 'https://localtest.me/',
    answers: { 'localtest.me': ['127.0.0.1'] },
  },
  {
    why: 'name resolving to IPv4-mapped metadata',
    url: 'https://customer.example/',
    answers: { 'customer.example': ['::ffff:169.254.169.254'] },
  },
  {
    why: 'trailing-dot name resolving to private',
    url: 'https://innocent.example./',
    answers: { 'innocent.example': ['192.168.0.1'] },
  },
];
