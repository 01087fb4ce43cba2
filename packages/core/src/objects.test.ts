import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from './objects.js';

describe('isoTime', () => {
  it('formats as Date#toISOString does, whatever values came before (recent ones are reused)', () => {
    const instant = fc.integer({ min: 0, max: Date.UTC(9999, 11, 31) });
    fc.assert(
      fc.property(fc.array(fc.oneof(instant, fc.constantFrom(0, 1_780_000_000_000, 1_780_000_000_001))), (values) => {
        for (const ms of values) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
    );
  });

  it('keeps null as null', () => {
    expect(isoTime(null)).toBeNull();
  });
});
