import fc from 'fast-check';
import { parseRateLimit } from 'ratelimit-header-parser';
import { describe, expect, it } from 'vitest';
import type { ScopeState } from '../../ports/limiter.js';
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

describe('rateLimitHeaders: the three forms', () => {
  const scopes = [state('key', 52, 53_200), state('project', 290, 10_000, 300)];
  const now = Date.UTC(2026, 10, 25, 12, 0, 0);

  it("'draft' writes the draft's structured fields, as its own example does", () => {
    // draft-ietf-httpapi-ratelimit-headers' example: RateLimit-Policy: "default";q=100;w=10 and
    // RateLimit: "default";r=50;t=30.
    const example = { name: 'default', limit: 100, windowMs: 10_000, remaining: 50, resetMs: 30_000 };
    expect(rateLimitHeaders([example], 'draft', now)).toEqual({
      'RateLimit-Policy': '"default";q=100;w=10',
      RateLimit: '"default";r=50;t=30',
    });
    expect(rateLimitHeaders(scopes)).toEqual(rateLimitHeaders(scopes, 'draft', now));
  });

  it("'draft-7' is read by ratelimit-header-parser as express-rate-limit's draft 7", () => {
    const headers = rateLimitHeaders(scopes, 'draft-7', now);
    expect(headers).toEqual({ 'RateLimit-Policy': '60;w=60', RateLimit: 'limit=60, remaining=52, reset=54' });
    const parsed = parseRateLimit(new Headers(headers));
    expect(parsed).toMatchObject({ limit: 60, remaining: 52, used: 8 });
    // The parser counts the reset in seconds from its own clock.
    expect(Math.abs(parsed!.reset!.getTime() - (Date.now() + 54_000))).toBeLessThan(5_000);
  });

  it("'legacy' writes X-RateLimit-* with the reset as Unix seconds, read by ratelimit-header-parser", () => {
    const headers = rateLimitHeaders(scopes, 'legacy', now);
    expect(headers).toEqual({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '52',
      'X-RateLimit-Reset': String(Math.ceil((now + 53_200) / 1000)),
    });
    const parsed = parseRateLimit(new Headers(headers), { reset: 'unix' });
    expect(parsed).toMatchObject({ limit: 60, remaining: 52, used: 8 });
    expect(parsed!.reset!.getTime()).toBe(Math.ceil((now + 53_200) / 1000) * 1000);
  });
});
