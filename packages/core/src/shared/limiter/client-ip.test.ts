import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createClientIpKeys, ipScopeKey, resolveClientIp } from './client-ip.js';

const resolve = (clientAddress: string | undefined, forwardedFor: string | null, trustProxy: number) =>
  resolveClientIp({ clientAddress, forwardedFor, trustProxy });

describe('resolveClientIp', () => {
  it('uses the socket address and ignores X-Forwarded-For when no proxy is trusted', () => {
    expect(resolve('203.0.113.9', '198.51.100.1', 0)).toBe('203.0.113.9');
    expect(resolve('::ffff:203.0.113.9', null, 0)).toBe('::ffff:203.0.113.9');
  });

  it('takes the address the nearest trusted proxy appended, ignoring what the client wrote', () => {
    const header = '6.6.6.6, 7.7.7.7, 198.51.100.7, 10.0.0.2';
    expect(resolve('10.0.0.1', header, 1)).toBe('10.0.0.2');
    expect(resolve('10.0.0.1', header, 2)).toBe('198.51.100.7');
  });

  it('takes the leftmost entry when there are fewer than the trusted hops', () => {
    expect(resolve('10.0.0.1', '198.51.100.7, 10.0.0.2', 5)).toBe('198.51.100.7');
  });

  it('falls back to the socket address without a usable header', () => {
    expect(resolve('10.0.0.1', null, 1)).toBe('10.0.0.1');
    expect(resolve('10.0.0.1', '', 1)).toBe('10.0.0.1');
    expect(resolve('10.0.0.1', 'garbage, unknown', 1)).toBe('10.0.0.1');
  });

  it('skips malformed entries', () => {
    expect(resolve('10.0.0.1', '198.51.100.7, not-an-ip, , 300.1.1.1', 1)).toBe('198.51.100.7');
  });

  it('strips ports, brackets and zones, and lowercases IPv6', () => {
    expect(resolve('10.0.0.1', '1.2.3.4:5678', 1)).toBe('1.2.3.4');
    expect(resolve('10.0.0.1', '[::1]:443', 1)).toBe('::1');
    expect(resolve('10.0.0.1', '[2001:DB8::1]', 1)).toBe('2001:db8::1');
    expect(resolve('fe80::1%eth0', null, 0)).toBe('fe80::1');
  });

  it("answers 'unknown' when nothing names the client", () => {
    expect(resolve(undefined, null, 0)).toBe('unknown');
    expect(resolve(undefined, 'junk', 1)).toBe('unknown');
    expect(resolve('not an address', null, 0)).toBe('unknown');
  });
});

describe('ipScopeKey', () => {
  it('keeps IPv4 as it is, and reads IPv4-mapped IPv6 as IPv4', () => {
    expect(ipScopeKey('203.0.113.9')).toBe('203.0.113.9');
    expect(ipScopeKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(ipScopeKey('::ffff:cb00:7109')).toBe('203.0.113.9');
  });

  it('groups IPv6 by /64, so one subscriber cannot rotate through its prefix', () => {
    expect(ipScopeKey('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(ipScopeKey('2001:db8:0:1:abcd:ef01:2345:6789')).toBe('2001:db8:0:1::/64');
    expect(ipScopeKey('2001:DB8:0:1:ABCD::1')).toBe('2001:db8:0:1::/64');
    expect(ipScopeKey('2001:db8:0:2::5')).not.toBe(ipScopeKey('2001:db8:0:1::5'));
  });

  it('expands :: wherever it stands', () => {
    expect(ipScopeKey('::1')).toBe('0:0:0:0::/64');
    expect(ipScopeKey('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(ipScopeKey('2001:0db8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8:0:0::/64');
    expect(ipScopeKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('returns anything else unchanged', () => {
    expect(ipScopeKey('unknown')).toBe('unknown');
  });
});

describe('createClientIpKeys', () => {
  const request = (forwardedFor?: string) =>
    new Request('http://x/', forwardedFor === undefined ? {} : { headers: { 'x-forwarded-for': forwardedFor } });

  it('answers as ipScopeKey of resolveClientIp for any sequence of requests', () => {
    const addresses = [undefined, '203.0.113.9', '::ffff:203.0.113.9', '2001:db8:0:1::5', '[2001:db8::1]:443', 'junk'];
    const forwarded = [undefined, '198.51.100.7', '198.51.100.7, 10.0.0.1', 'junk, 2001:db8:0:2::9'];
    for (const trustProxy of [0, 1, 2]) {
      const keys = createClientIpKeys(trustProxy);
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.constantFrom(...addresses), fc.constantFrom(...forwarded)), { maxLength: 30 }),
          (requests) => {
            for (const [clientAddress, forwardedFor] of requests) {
              expect(keys.of(clientAddress, request(forwardedFor))).toBe(
                ipScopeKey(resolveClientIp({ clientAddress, forwardedFor: forwardedFor ?? null, trustProxy })),
              );
            }
          },
        ),
        { numRuns: 50 },
      );
    }
  });
});
