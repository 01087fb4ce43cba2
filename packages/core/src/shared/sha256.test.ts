import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { portableSha256Hex, sha256Hex } from './sha256.js';

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 test vectors', () => {
    const vectors: [string, string][] = [
      ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
      ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
      [
        'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
        '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
      ],
    ];
    for (const [input, digest] of vectors) {
      expect(sha256Hex(input)).toBe(digest);
      expect(portableSha256Hex(input)).toBe(digest);
    }
  });

  it('uses the native digest on Node', () => {
    expect(sha256Hex).not.toBe(portableSha256Hex);
  });

  it('gives the same bytes natively and in JavaScript for any string, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (value) => {
        expect(sha256Hex(value)).toBe(portableSha256Hex(value));
      }),
      { numRuns: 500 },
    );
  });
});
