import { describe, expect, it } from 'vitest';
import {
  embeddedIpv4,
  isRefusedAddress,
  parseCidr,
  parseTrustedRanges,
  rangeContains,
} from './address-policy.js';
import { parseIp } from './ip-address.js';

describe('isRefusedAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.255.255.255', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.1.2.3', 'reserved'],
    ['192.0.2.55', 'documentation'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00::1', 'private'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['::ffff:10.0.0.1', 'private'],
    ['::10.0.0.1', 'private'],
    ['64:ff9b::192.168.1.1', 'private'],
    ['64:ff9b:1::a9fe:a9fe', 'link-local'],
    ['2002:c0a8:0101::1', 'private'],
    ['2001::1', 'reserved'],
    ['4000::1', 'reserved'],
  ])('refuses %s as %s', (address, reason) => {
    expect(isRefusedAddress(address)?.reason).toBe(reason);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('accepts the public address %s', (address) => {
    expect(isRefusedAddress(address)).toBeUndefined();
  });

  it('refuses anything that is not an address', () => {
    expect(isRefusedAddress('example.com')?.reason).toBe('unparsable');
  });

  it('lets trusted ranges through, but never loopback, link-local or unspecified', () => {
    const trustedRanges = parseTrustedRanges(['198.18.0.0/15', 'fd00:1234::/32']);
    expect(isRefusedAddress('198.19.255.1', { trustedRanges })).toBeUndefined();
    expect(isRefusedAddress('::ffff:198.18.0.1', { trustedRanges })).toBeUndefined();
    expect(isRefusedAddress('fd00:1234::9', { trustedRanges })).toBeUndefined();
    expect(isRefusedAddress('198.20.0.1', { trustedRanges })).toBeUndefined();
    expect(isRefusedAddress('10.0.0.1', { trustedRanges })?.reason).toBe('private');
    const unsafe = [parseCidr('127.0.0.0/8'), parseCidr('::ffff:0:0/96')];
    expect(isRefusedAddress('127.0.0.1', { trustedRanges: unsafe })?.reason).toBe('loopback');
    expect(isRefusedAddress('::ffff:169.254.169.254', { trustedRanges: unsafe })?.reason).toBe(
      'link-local',
    );
  });
});

describe('parseTrustedRanges', () => {
  it('rejects malformed, too wide and unsafe ranges with a clear message', () => {
    expect(() => parseTrustedRanges(['198.18.0.0/33'])).toThrow(/not a CIDR range/);
    expect(() => parseTrustedRanges(['nonsense'])).toThrow(/not a CIDR range/);
    expect(() => parseTrustedRanges(['0.0.0.0/0'])).toThrow(/too wide/);
    expect(() => parseTrustedRanges(['127.0.0.0/16'])).toThrow(/overlaps 127.0.0.0\/8/);
    expect(() => parseTrustedRanges(['169.254.169.254/32'])).toThrow(/can never be trusted/);
    expect(() => parseTrustedRanges(['fe80::/16'])).toThrow(/overlaps/);
  });
});

describe('ranges and embeddings', () => {
  it('matches prefixes bit by bit', () => {
    const range = parseCidr('100.64.0.0/10');
    expect(rangeContains(range, parseIp('100.127.255.255')!)).toBe(true);
    expect(rangeContains(range, parseIp('100.128.0.0')!)).toBe(false);
    expect(rangeContains(range, parseIp('::1')!)).toBe(false);
  });

  it('finds the IPv4 address inside mapped, NAT64 and 6to4 forms', () => {
    expect(embeddedIpv4(parseIp('::ffff:1.2.3.4')!)).toMatchObject({ label: 'IPv4-mapped' });
    expect(embeddedIpv4(parseIp('64:ff9b::1.2.3.4')!)?.ip.bytes).toEqual(
      new Uint8Array([1, 2, 3, 4]),
    );
    expect(embeddedIpv4(parseIp('2002:102:304::')!)?.ip.bytes).toEqual(
      new Uint8Array([1, 2, 3, 4]),
    );
    expect(embeddedIpv4(parseIp('2606:4700::1')!)).toBeUndefined();
  });
});
