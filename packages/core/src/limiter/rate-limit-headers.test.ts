import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ScopeState } from '../ports/limiter.js';
import { rateLimitHeaders, retryAfterSeconds } from './rate-limit-headers.js';

const state = (name: string, remaining: number, resetMs: number, limit = 60): ScopeState => ({
  name,
  limit,
  windowMs: 60_000,
  remaining,
  resetMs,
});

describe('retryAfterSeconds', () => {
  it('rounds up to whole seconds, never below 1', () => {
    expect(retryAfterSeconds(0)).toBe(1);
    expect(retryAfterSeconds(-5)).toBe(1);
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(1_000)).toBe(1);
    expect(retryAfterSeconds(1_001)).toBe(2);
    expect(retryAfterSeconds(59_999)).toBe(60);
  });

  it('refuses a wait that is not a number', () => {
    expect(() => retryAfterSeconds(Number.NaN)).toThrow(TypeError);
    expect(() => retryAfterSeconds(Number.POSITIVE_INFINITY)).toThrow(TypeError);
  });

  it('is an integer of at least 1 that never tells a client to come back early', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, min: -1e12, max: 1e12 }), (ms) => {
        const seconds = retryAfterSeconds(ms);
        expect(Number.isInteger(seconds)).toBe(true);
        expect(seconds).toBeGreaterThanOrEqual(1);
        expect(seconds * 1000).toBeGreaterThanOrEqual(ms);
        if (ms > 1000) expect((seconds - 1) * 1000).toBeLessThan(ms);
      }),
    );
  });
});

describe('rateLimitHeaders', () => {
  it('describes the scope with the fewest remaining, in structured-field syntax', () => {
    const headers = rateLimitHeaders([state('key', 12, 40_001), state('project', 290, 59_000, 300)]);
    expect(headers).toEqual({ 'RateLimit-Policy': '"key";q=60;w=60', RateLimit: '"key";r=12;t=41' });
  });

  it('breaks a tie in remaining by the longest reset', () => {
    const headers = rateLimitHeaders([state('key', 0, 1_000), state('account', 0, 30_000, 600)]);
    expect(headers).toEqual({ 'RateLimit-Policy': '"account";q=600;w=60', RateLimit: '"account";r=0;t=30' });
  });

  it('reports t=0 for an empty scope and nothing for no scopes', () => {
    expect(rateLimitHeaders([state('ip', 120, 0, 120)]).RateLimit).toBe('"ip";r=120;t=0');
    expect(rateLimitHeaders([])).toEqual({});
  });

  it('escapes the name as a structured-field string and refuses what it cannot carry', () => {
    expect(rateLimitHeaders([state('a"b\\c', 1, 1)])['RateLimit-Policy']).toBe('"a\\"b\\\\c";q=60;w=60');
    expect(() => rateLimitHeaders([state('clé', 1, 1)])).toThrow(TypeError);
  });
});
