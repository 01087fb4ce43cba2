import { describe, expect, it } from 'vitest';
import { isIpv4, parseHostAddress, parseIpv6 } from './ip-address.js';

describe('isIpv4', () => {
  it('accepts dotted quads only', () => {
    expect(isIpv4('0.0.0.0')).toBe(true);
    expect(isIpv4('255.255.255.255')).toBe(true);
    for (const text of ['256.0.0.1', '1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.4 ', 'a.b.c.d', '']) {
      expect(isIpv4(text), text).toBe(false);
    }
  });
});

describe('parseIpv6', () => {
  it('expands :: at the start, middle and end', () => {
    expect(parseIpv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIpv6('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6('2001:db8::1')).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6('2001:db8::')).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0]);
    expect(parseIpv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('reads a dotted IPv4 tail as the last two groups', () => {
    expect(parseIpv6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    expect(parseIpv6('64:ff9b::192.0.2.33')).toEqual([0x64, 0xff9b, 0, 0, 0, 0, 0xc000, 0x0221]);
  });

  it('refuses what is not an address', () => {
    for (const text of [
      '',
      '1',
      '1::2::3',
      '1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4::5:6:7:8',
      '12345::',
      'g::',
      '1.2.3.4::',
    ]) {
      expect(parseIpv6(text), text).toBeUndefined();
    }
  });
});

describe('parseHostAddress', () => {
  it('strips ports and brackets', () => {
    expect(parseHostAddress(' 1.2.3.4:5678 ')).toBe('1.2.3.4');
    expect(parseHostAddress('[::1]:443')).toBe('::1');
    expect(parseHostAddress('[::1]')).toBe('::1');
  });

  it('refuses malformed hosts and ports', () => {
    for (const text of ['[::1', '[::1]x', '[::1]:', '1.2.3.4:', '1.2.3.4:port', 'host:80', 'unknown', '[1.2.3.4]']) {
      expect(parseHostAddress(text), text).toBeUndefined();
    }
  });
});
