import { describe, expect, it } from 'vitest';
import { randomString } from './random.js';

describe('randomString', () => {
  it('draws exactly `length` characters of the alphabet', () => {
    for (const length of [0, 1, 16, 32, 5000]) {
      const value = randomString(length, 'abc');
      expect(value).toHaveLength(length);
      expect(value).toMatch(/^[abc]*$/);
    }
  });

  it('refuses alphabets it cannot draw from without bias', () => {
    expect(() => randomString(4, 'a')).toThrow(RangeError);
    expect(() => randomString(4, 'x'.repeat(257))).toThrow(RangeError);
  });

  it('is uniform over a 62-symbol alphabet (no modulo bias) across pool refills', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    const counts = new Map<string, number>();
    // 62 × 2000 draws, many times the pool's size: every symbol near 2000, none far off.
    for (const char of randomString(62 * 2000, alphabet)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(1700);
      expect(count).toBeLessThan(2300);
    }
  });

  it('never repeats: 10 000 ids of 16 characters are distinct', () => {
    const seen = new Set(Array.from({ length: 10_000 }, () => randomString(16, '0123456789abcdefghjkmnpqrstvwxyz')));
    expect(seen.size).toBe(10_000);
  });
});
