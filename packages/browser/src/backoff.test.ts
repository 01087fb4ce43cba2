import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.js';

describe('backoffDelay', () => {
  it('stays in [0, min(cap, base × 2^attempt)) for every attempt and draw', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 1, max: 10_000 }),
        (attempt, draw, baseMs) => {
          const delay = backoffDelay(attempt, () => draw, baseMs);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThan(Math.min(30_000, baseMs * 2 ** attempt));
          expect(Number.isInteger(delay)).toBe(true);
        },
      ),
    );
  });

  it('doubles the bound per attempt from 1 s and caps it at 30 s', () => {
    const almostOne = () => 0.999_999;
    expect([0, 1, 2, 3, 4, 5, 6, 50].map((attempt) => backoffDelay(attempt, almostOne))).toEqual([
      999, 1999, 3999, 7999, 15_999, 29_999, 29_999, 29_999,
    ]);
  });

  it('can wait no time at all: full jitter, not equal jitter', () => {
    expect(backoffDelay(5, () => 0)).toBe(0);
  });
});
