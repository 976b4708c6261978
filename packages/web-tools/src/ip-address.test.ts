import { describe, expect, it } from 'vitest';
import { formatIp, parseHostLiteral, parseIp } from './ip-address.js';

describe('parseHostLiteral', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1', 'canonical'],
    ['2130706433', '127.0.0.1', 'decimal'],
    ['0x7f000001', '127.0.0.1', 'hex'],
    ['0X7F.0.0.1', '127.0.0.1', 'hex'],
    ['0177.0.0.1', '127.0.0.1', 'octal'],
    ['017700000001', '127.0.0.1', 'octal'],
    ['127.1', '127.0.0.1', 'shortened'],
    ['10.1.1', '10.1.0.1', 'shortened'],
    ['0x7f.01.0.1', '127.1.0.1', 'mixed'],
    ['0', '0.0.0.0', 'decimal'],
    ['0x', '0.0.0.0', 'hex'],
    ['[::1]', '::1', 'canonical'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1', 'canonical'],
  ])('reads %s as %s (%s)', (host, address, form) => {
    expect(parseHostLiteral(host)).toMatchObject({ address, form });
  });

  it.each([
    'example.com',
    '1.2.3.4.5',
    '256.1.1.1',
    '08.1.1.1',
    '1..1',
    'a1.2.3.4',
    '[::1',
    '4294967296',
  ])('does not read %s as an IP literal', (host) => {
    expect(parseHostLiteral(host)).toBeUndefined();
  });
});

describe('parseIp and formatIp', () => {
  it('round-trips IPv6 forms to their compressed text', () => {
    expect(formatIp(parseIp('2001:0db8:0000:0000:0000:0000:0000:0001')!)).toBe('2001:db8::1');
    expect(formatIp(parseIp('0:0:0:0:0:ffff:192.168.0.1')!)).toBe('::ffff:c0a8:1');
    expect(formatIp(parseIp('fe80::')!)).toBe('fe80::');
    expect(formatIp(parseIp('1:0:0:2:0:0:0:3')!)).toBe('1:0:0:2::3');
    expect(formatIp(parseIp('1:2:3:4:5:6:7:8')!)).toBe('1:2:3:4:5:6:7:8');
  });

  it('accepts only canonical dotted quads for IPv4', () => {
    expect(parseIp('10.0.0.1')?.bytes).toEqual(new Uint8Array([10, 0, 0, 1]));
    expect(parseIp('010.0.0.1')).toBeUndefined();
    expect(parseIp('10.1')).toBeUndefined();
  });

  it('rejects malformed IPv6', () => {
    for (const text of [
      '1::2::3',
      '1:2:3:4:5:6:7:8:9',
      '12345::',
      'fe80::1%eth0',
      '::1.2.3',
      '1:2:3:4:5:6:7',
    ]) {
      expect(parseIp(text)).toBeUndefined();
    }
  });
});
