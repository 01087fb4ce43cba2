import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utcDay } from './time.js';

describe('utcDay', () => {
  it('names the UTC day of any instant, whatever day it named before', () => {
    const instant = fc.integer({ min: -8.64e15, max: 8.64e15 - 1 });
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (instants) => {
        for (const ms of instants) expect(utcDay(ms)).toBe(new Date(ms).toISOString().slice(0, 10));
      }),
    );
  });

  it('switches day at midnight UTC, on both sides of the epoch', () => {
    const midnight = Date.UTC(2026, 0, 2);
    expect([utcDay(midnight - 1), utcDay(midnight), utcDay(midnight - 1)]).toEqual([
      '2026-01-01',
      '2026-01-02',
      '2026-01-01',
    ]);
    expect([utcDay(-1), utcDay(0)]).toEqual(['1969-12-31', '1970-01-01']);
  });
});
