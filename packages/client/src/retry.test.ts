import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffBoundMs, isRetryableAnswer, parseRetryAfterMs, retryDelayMs } from './retry.js';

const draw = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const bounds = fc
  .record({ initialRetryDelayMs: fc.integer({ min: 1, max: 5000 }), extra: fc.integer({ min: 0, max: 60_000 }) })
  .map(({ initialRetryDelayMs, extra }) => ({
    initialRetryDelayMs,
    maxRetryDelayMs: initialRetryDelayMs + extra,
    maxRetryAfterMs: 60_000,
  }));

describe('retryDelayMs', () => {
  it('without Retry-After: a whole number in [0, min(max, initial × 2^retry)), for every retry and draw', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), draw, bounds, (retry, random, options) => {
        const delay = retryDelayMs(retry, null, () => random, options)!;
        expect(Number.isInteger(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(Math.min(options.maxRetryDelayMs, options.initialRetryDelayMs * 2 ** retry));
      }),
    );
  });

  it('with Retry-After: never earlier, and at most the first backoff bound later', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 }), draw, bounds, fc.nat(60_000), (retry, random, options, after) => {
        const delay = retryDelayMs(retry, after, () => random, options)!;
        expect(delay).toBeGreaterThanOrEqual(after);
        expect(delay).toBeLessThan(after + options.initialRetryDelayMs);
      }),
    );
  });

  it('gives up (null) when Retry-After is longer than maxRetryAfterMs allows', () => {
    fc.assert(
      fc.property(draw, fc.integer({ min: 1, max: 100_000 }), (random, over) => {
        const options = { initialRetryDelayMs: 500, maxRetryDelayMs: 8000, maxRetryAfterMs: 10_000 };
        expect(retryDelayMs(0, 10_000 + over, () => random, options)).toBeNull();
        expect(retryDelayMs(0, 10_000, () => random, options)).not.toBeNull();
      }),
    );
  });

  it('doubles the bound per retry from 500 ms and caps it at 8 s by default values', () => {
    const options = { initialRetryDelayMs: 500, maxRetryDelayMs: 8000 };
    expect([0, 1, 2, 3, 4, 5, 80].map((retry) => backoffBoundMs(retry, options))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000, 8000,
    ]);
    // Full jitter, not equal jitter: a draw of 0 waits no time at all.
    expect(retryDelayMs(4, null, () => 0, { ...options, maxRetryAfterMs: 60_000 })).toBe(0);
  });
});

describe('isRetryableAnswer', () => {
  it('retries 5xx, 429 and 409 IDEMPOTENCY_IN_PROGRESS, never another 4xx', () => {
    for (const status of [500, 502, 503, 504, 599]) expect(isRetryableAnswer(status, null)).toBe(true);
    expect(isRetryableAnswer(429, 'RATE_LIMITED')).toBe(true);
    expect(isRetryableAnswer(409, 'IDEMPOTENCY_IN_PROGRESS')).toBe(true);
    for (const [status, code] of [
      [400, 'VALIDATION_FAILED'],
      [401, 'UNAUTHORIZED'],
      [403, 'FORBIDDEN'],
      [403, 'PROJECT_SUSPENDED'],
      [404, 'NOT_FOUND'],
      [408, null],
      [409, 'NO_CONNECTED_BROWSER'],
      [409, null],
      [413, 'PAYLOAD_TOO_LARGE'],
      [415, 'UNSUPPORTED_MEDIA_TYPE'],
      [422, 'IDEMPOTENCY_MISMATCH'],
    ] as const) {
      expect(isRetryableAnswer(status, code)).toBe(false);
    }
  });
});

describe('parseRetryAfterMs', () => {
  it('reads delay-seconds and HTTP dates; garbage and absence read as null', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfterMs('7', now)).toBe(7000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
    expect(parseRetryAfterMs('Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs('-1', now)).toBeNull();
    expect(parseRetryAfterMs('1.5', now)).toBeNull();
    expect(parseRetryAfterMs('soon', now)).toBeNull();
    expect(parseRetryAfterMs(null, now)).toBeNull();
  });
});
