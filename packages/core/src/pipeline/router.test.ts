import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathOf } from './router.js';

describe('pathOf', () => {
  it('is the pathname of any serialized http(s) URL', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (raw) => {
        const href = new URL(raw).href;
        expect(pathOf(href)).toBe(new URL(href).pathname);
      }),
      { numRuns: 2000 },
    );
  });

  it('handles ports, IPv6 hosts, escapes, and a query or fragment right after the host', () => {
    for (const raw of [
      'http://127.0.0.1:8787/v1/notifications/ntf_1?x=/y',
      'https://[::1]:8443/notify/v1/connect/ct_a%2Fb#frag/x',
      'http://example.com?q=1',
      'http://example.com#/a',
      'http://example.com',
      'https://user:pa%2Fss@example.com/a/../b/./c',
      'http://example.com/%7Euser/ä space',
    ]) {
      const href = new URL(raw).href;
      expect(pathOf(href), raw).toBe(new URL(href).pathname);
    }
  });
});
