import { describe, expect, it } from 'vitest';
import type { LimitScope } from '../../ports/limiter.js';
import { runLimiterConformance } from '../../testing/limiter-conformance.js';
import { createMemoryLimiter } from './memory-limiter.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 1);

const key: LimitScope = { name: 'key', id: 'key:k1', limit: 3, windowMs: MINUTE };
const project: LimitScope = { name: 'project', id: 'project:p1', limit: 5, windowMs: MINUTE };

// A short sweep interval, so that the properties run through sweeps too.
runLimiterConformance('memory', () => createMemoryLimiter({ sweepIntervalMs: 7 }));

describe('createMemoryLimiter', () => {
  it('forgets idle scopes at a sweep and keeps active ones', async () => {
    const limiter = createMemoryLimiter({ sweepIntervalMs: MINUTE });
    for (let i = 0; i < 100; i++) await limiter.consume([{ ...key, id: `ip:${i}` }], T0);
    // A sweep runs, but a window of grace remains for requests whose `now` lags behind.
    await limiter.consume([project], T0 + 2 * MINUTE - 1);
    expect(limiter.scopeCount()).toBe(101);
    await limiter.consume([project], T0 + 3 * MINUTE - 2);
    expect(limiter.scopeCount()).toBe(101);
    // The next sweep is due and the IPs have been idle for two windows.
    await limiter.consume([project], T0 + 3 * MINUTE - 1);
    expect(limiter.scopeCount()).toBe(1);
  });

  it('clears everything on close', async () => {
    const limiter = createMemoryLimiter();
    for (let i = 0; i < 3; i++) await limiter.consume([key], T0);
    await limiter.close();
    expect(limiter.scopeCount()).toBe(0);
    expect((await limiter.consume([key], T0)).allowed).toBe(true);
  });

  it('refuses a bad sweep interval at construction', () => {
    expect(() => createMemoryLimiter({ sweepIntervalMs: 0 })).toThrow(/sweepIntervalMs/);
  });
});
