import { describe, expect, it } from 'vitest';
import { bypassesProxy, parseNoProxy } from './no-proxy.js';

const bypass = (list: string, host: string, port = 443): boolean =>
  bypassesProxy(parseNoProxy(list), host, port);

describe('parseNoProxy', () => {
  it('splits on commas and whitespace and skips empty entries', () => {
    const list = parseNoProxy(' example.com, .corp.example ,,\tintranet.example\n10.0.0.0/8 ');
    expect(list.invalid).toEqual([]);
    expect(list.entries).toEqual([
      { kind: 'name', name: 'example.com' },
      { kind: 'name', name: 'corp.example' },
      { kind: 'name', name: 'intranet.example' },
      expect.objectContaining({ kind: 'address', range: expect.objectContaining({ prefix: 8 }) }),
    ]);
    expect(parseNoProxy('').entries).toEqual([]);
    expect(parseNoProxy(['a.example', 'b.example c.example']).entries).toHaveLength(3);
  });

  it('collects junk entries as invalid instead of failing', () => {
    const junk = [
      'a..b',
      '-bad.example',
      'exa$mple',
      'under_score-.example',
      '*foo.example',
      'foo.*.example',
      '**',
      'example.com:0',
      'example.com:99999',
      'example.com:http',
      '10.0.0.0/33',
      '10.0.0.0/8:443',
      '::1/129',
      '300.1.1.1',
      '127.1',
      '0x7f000001',
      '10.0.0',
      '[example.com]',
      '[::1',
      '[::1]x',
      'fe80::1%eth0',
      'host/path',
      '.',
      '*.',
    ];
    const list = parseNoProxy(junk.join(','));
    expect(list.entries).toEqual([]);
    expect(list.invalid).toEqual(junk);
    const mixed = parseNoProxy('good.example, a..b, 10.1.2.3');
    expect(mixed.entries).toHaveLength(2);
    expect(mixed.invalid).toEqual(['a..b']);
  });
});

describe('bypassesProxy', () => {
  it('matches a name and its subdomains, with or without a leading dot or *.', () => {
    for (const entry of ['example.com', '.example.com', '*.example.com', 'example.com.']) {
      expect(bypass(entry, 'example.com')).toBe(true);
      expect(bypass(entry, 'a.example.com')).toBe(true);
      expect(bypass(entry, 'deep.a.example.com')).toBe(true);
      expect(bypass(entry, 'notexample.com')).toBe(false);
      expect(bypass(entry, 'example.com.evil.org')).toBe(false);
      expect(bypass(entry, 'example.org')).toBe(false);
    }
    expect(bypass('ample.com', 'www.example.com')).toBe(false);
  });

  it('is case-insensitive and reads internationalised names as their ASCII form', () => {
    expect(bypass('Docs.EXAMPLE.com', 'docs.example.com')).toBe(true);
    expect(bypass('bücher.example', 'xn--bcher-kva.example')).toBe(true);
  });

  it('bypasses every host for a lone *, and only then', () => {
    expect(bypass('*', 'anything.example')).toBe(true);
    expect(bypass('*', '93.184.216.34', 8443)).toBe(true);
    expect(bypass('other.example, *', '2606:2800::1')).toBe(true);
    expect(bypass('', 'anything.example')).toBe(false);
  });

  it('restricts an entry with :port to that port', () => {
    expect(bypass('example.com:8443', 'example.com', 8443)).toBe(true);
    expect(bypass('example.com:8443', 'api.example.com', 8443)).toBe(true);
    expect(bypass('example.com:8443', 'example.com', 443)).toBe(false);
    expect(bypass('203.0.113.7:443', '203.0.113.7', 443)).toBe(true);
    expect(bypass('203.0.113.7:443', '203.0.113.7', 444)).toBe(false);
    expect(bypass('[2001:db8::1]:443', '2001:db8::1', 443)).toBe(true);
    expect(bypass('[2001:db8::1]:443', '2001:db8::1', 8443)).toBe(false);
  });

  it('matches IPv4 and IPv6 literals exactly, whatever the IPv6 spelling', () => {
    expect(bypass('93.184.216.34', '93.184.216.34')).toBe(true);
    expect(bypass('93.184.216.34', '93.184.216.35')).toBe(false);
    expect(bypass('2001:DB8:0:0::1', '2001:db8::1')).toBe(true);
    expect(bypass('[2001:db8::1]', '2001:db8::1')).toBe(true);
    expect(bypass('2001:db8::1', '2001:db8::2')).toBe(false);
  });

  it('matches IP-literal hosts inside CIDR ranges, IPv4 and IPv6', () => {
    expect(bypass('10.0.0.0/8', '10.200.3.4')).toBe(true);
    expect(bypass('10.0.0.0/8', '11.0.0.1')).toBe(false);
    expect(bypass('192.168.0.0/16', '192.168.255.1')).toBe(true);
    expect(bypass('2001:db8::/32', '2001:db8:ffff::1')).toBe(true);
    expect(bypass('2001:db8::/32', '2001:db9::1')).toBe(false);
    expect(bypass('10.0.0.0/8', '::ffff:10.0.0.1')).toBe(false);
  });

  it('never lets a name entry match an IP literal or an address entry match a name', () => {
    expect(bypass('0.1', '10.0.0.1')).toBe(false);
    expect(bypass('0.0.1', '10.0.0.1')).toBe(false);
    expect(bypass('10.0.0.0/8', '10.example')).toBe(false);
    expect(bypass('93.184.216.34', '93.184.216.34.nip.io')).toBe(false);
  });

  it('ignores junk entries and still honours the good ones around them', () => {
    expect(bypass('a..b, good.example, 10.0.0.0/99', 'www.good.example')).toBe(true);
    expect(bypass('a..b, good.example, 10.0.0.0/99', '10.0.0.1')).toBe(false);
  });
});
