import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LimitDecision, LimitScope } from '../ports/limiter.js';
import { createMemoryLimiter } from './memory-limiter.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 1);

const key: LimitScope = { name: 'key', id: 'key:k1', limit: 3, windowMs: MINUTE };
const project: LimitScope = { name: 'project', id: 'project:p1', limit: 5, windowMs: MINUTE };
const account: LimitScope = { name: 'account', id: 'account:a1', limit: 8, windowMs: MINUTE };
const scopes = [key, project, account];

function remaining(decision: LimitDecision, name: string): number | undefined {
  return decision.scopes.find((scope) => scope.name === name)?.remaining;
}

describe('createMemoryLimiter', () => {
  it('admits exactly the limit in a window, then refuses', async () => {
    const limiter = createMemoryLimiter();
    for (let i = 0; i < 3; i++) {
      const decision = await limiter.consume([key], T0 + i);
      expect(decision.allowed).toBe(true);
      expect(decision.scopes[0]).toEqual({
        name: 'key',
        limit: 3,
        windowMs: MINUTE,
        remaining: 2 - i,
        resetMs: MINUTE - i,
      });
    }
    const refused = await limiter.consume([key], T0 + 10);
    expect(refused).toEqual({
      allowed: false,
      retryAfterMs: MINUTE - 10,
      scopes: [{ name: 'key', limit: 3, windowMs: MINUTE, remaining: 0, resetMs: MINUTE - 10 }],
    });
  });

  it('admits again exactly when the oldest request leaves the window', async () => {
    const limiter = createMemoryLimiter();
    for (let i = 0; i < 3; i++) await limiter.consume([key], T0 + i * 100);
    expect((await limiter.consume([key], T0 + MINUTE - 1)).allowed).toBe(false);
    const admitted = await limiter.consume([key], T0 + MINUTE);
    expect(admitted.allowed).toBe(true);
    // Left in the window: T0+100, T0+200 and the new one; the next to leave is T0+100.
    expect(admitted.scopes[0]).toMatchObject({ remaining: 0, resetMs: 100 });
    expect((await limiter.consume([key], T0 + MINUTE + 99)).allowed).toBe(false);
  });

  it('lets the tightest of three scopes decide, and a refusal consumes in none', async () => {
    const limiter = createMemoryLimiter();
    for (let i = 0; i < 3; i++) expect((await limiter.consume(scopes, T0 + i)).allowed).toBe(true);
    const refused = await limiter.consume(scopes, T0 + 5);
    expect(refused.allowed).toBe(false);
    expect(refused.scopes.map((scope) => scope.remaining)).toEqual([0, 2, 5]);
    // Another key of the same project and account sees the counts the refusal left untouched.
    const sibling = await limiter.consume([{ ...key, id: 'key:k2' }, project, account], T0 + 6);
    expect(sibling.allowed).toBe(true);
    expect(remaining(sibling, 'project')).toBe(1);
    expect(remaining(sibling, 'account')).toBe(4);
  });

  it('retries after the longest wait among the full scopes', async () => {
    const limiter = createMemoryLimiter();
    const tightKey = { ...key, limit: 1 };
    const tightProject = { ...project, limit: 2 };
    await limiter.consume([tightProject], T0);
    await limiter.consume([tightKey, tightProject], T0 + 1_000);
    const refused = await limiter.consume([tightKey, tightProject], T0 + 2_000);
    // The project frees a slot at T0+60s, the key at T0+61s: the request needs both.
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: MINUTE - 1_000 });
    expect((await limiter.consume([tightKey, tightProject], T0 + MINUTE + 999)).allowed).toBe(false);
    expect((await limiter.consume([tightKey, tightProject], T0 + MINUTE + 1_000)).allowed).toBe(true);
  });

  it('reports an empty scope with its whole limit and no reset', async () => {
    const limiter = createMemoryLimiter();
    await limiter.consume([key], T0);
    const refused = await limiter.consume([{ ...key, limit: 1 }, project], T0 + 1);
    expect(refused.scopes[1]).toEqual({ name: 'project', limit: 5, windowMs: MINUTE, remaining: 5, resetMs: 0 });
  });

  it('holds more than its initial capacity when the limit is large', async () => {
    const limiter = createMemoryLimiter();
    const big = { ...account, limit: 600 };
    for (let i = 0; i < 600; i++) expect((await limiter.consume([big], T0 + i)).allowed).toBe(true);
    expect(await limiter.consume([big], T0 + 600)).toMatchObject({ allowed: false, retryAfterMs: MINUTE - 600 });
    expect((await limiter.consume([big], T0 + MINUTE + 1)).allowed).toBe(true);
    expect((await limiter.consume([big], T0 + MINUTE + 1)).allowed).toBe(true);
    expect((await limiter.consume([big], T0 + MINUTE + 1)).allowed).toBe(false);
  });

  it('counts every request in the window when a scope limit changes, so no burst opens', async () => {
    const limiter = createMemoryLimiter();
    for (let i = 0; i < 4; i++) await limiter.consume([{ ...key, limit: 5 }], T0 + i * 1_000);
    // Four in the window against a limit of 3: one more when the 3rd newest (T0+1s) leaves.
    expect(await limiter.consume([key], T0 + 4_000)).toMatchObject({
      allowed: false,
      retryAfterMs: MINUTE - 3_000,
      scopes: [{ remaining: 0, resetMs: MINUTE - 3_000 }],
    });
    // Raised again, the scope still counts all four.
    expect(await limiter.consume([{ ...key, limit: 6 }], T0 + 4_000)).toMatchObject({
      allowed: true,
      scopes: [{ remaining: 1 }],
    });
  });

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

  it('rejects misuse: a scope twice, a bad limit or window, a non-finite now', async () => {
    const limiter = createMemoryLimiter();
    await expect(limiter.consume([key, { ...key, name: 'again' }], T0)).rejects.toThrow(/twice/);
    await expect(limiter.consume([{ ...key, id: 'x', limit: 0 }], T0)).rejects.toThrow(/limit/);
    await expect(limiter.consume([{ ...key, id: 'y', limit: 1.5 }], T0)).rejects.toThrow(/limit/);
    await expect(limiter.consume([{ ...key, id: 'z', windowMs: 0 }], T0)).rejects.toThrow(/windowMs/);
    await expect(limiter.consume([key], Number.NaN)).rejects.toThrow(/now/);
    expect(() => createMemoryLimiter({ sweepIntervalMs: 0 })).toThrow(/sweepIntervalMs/);
  });

  it('admits an empty list of scopes', async () => {
    expect(await createMemoryLimiter().consume([], T0)).toEqual({ allowed: true, scopes: [] });
  });
});

// Three scopes with small limits and windows, so random runs fill and drain them often.
const scopeArbitrary = fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 40 }));
const setupArbitrary = fc
  .array(scopeArbitrary, { minLength: 1, maxLength: 3 })
  .map((specs) =>
    specs.map(([limit, windowMs], i): LimitScope => ({ name: `s${i}`, id: `scope:${i}`, limit, windowMs })),
  );
const stepArbitrary = fc.record({
  pick: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 15 })),
});
const runArbitrary = fc.record({ setup: setupArbitrary, steps: fc.array(stepArbitrary, { maxLength: 120 }) });

function pickScopes(setup: LimitScope[], pick: boolean[]): LimitScope[] {
  const chosen = setup.filter((_, i) => pick[i]);
  return chosen.length > 0 ? chosen : [setup[0]!];
}

describe('createMemoryLimiter properties', () => {
  it('decides exactly like a naive sliding log, so no window ever holds more than the limit', async () => {
    await fc.assert(
      fc.asyncProperty(runArbitrary, fc.boolean(), async ({ setup, steps }, changeLimits) => {
        const limiter = createMemoryLimiter({ sweepIntervalMs: 7 });
        const admitted = new Map<string, number[]>(setup.map((scope) => [scope.id, []]));
        let now = T0;
        for (const [n, step] of steps.entries()) {
          now += step.advanceMs;
          // Optionally, a configuration that moves each scope's limit around between calls.
          const limits = setup.map((scope, i) => (changeLimits ? 1 + ((n + i * 3 + step.advanceMs) % 4) : scope.limit));
          const chosen = pickScopes(
            setup.map((scope, i) => ({ ...scope, limit: limits[i]! })),
            step.pick,
          );
          const inWindow = (scope: LimitScope) => admitted.get(scope.id)!.filter((t) => t > now - scope.windowMs);
          const expected = chosen.every((scope) => inWindow(scope).length < scope.limit);
          const decision = await limiter.consume(chosen, now);
          expect(decision.allowed).toBe(expected);
          if (decision.allowed) for (const scope of chosen) admitted.get(scope.id)!.push(now);
          for (const [i, scope] of chosen.entries()) {
            const held = inWindow(scope);
            const next = held[Math.max(0, held.length - scope.limit)];
            expect(decision.scopes[i]).toEqual({
              name: scope.name,
              limit: scope.limit,
              windowMs: scope.windowMs,
              remaining: Math.max(0, scope.limit - held.length),
              resetMs: next === undefined ? 0 : next + scope.windowMs - now,
            });
          }
        }
        if (changeLimits) return;
        for (const scope of setup) {
          const times = admitted.get(scope.id)!;
          // No span [t, t + windowMs) holds limit + 1 admissions.
          for (let i = 0; i + scope.limit < times.length; i++) {
            expect(times[i + scope.limit]! - times[i]!).toBeGreaterThanOrEqual(scope.windowMs);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('stays within the limit when concurrent requests bring their times out of order', async () => {
    const jitteredArbitrary = fc.record({
      setup: setupArbitrary,
      steps: fc.array(fc.record({ pick: stepArbitrary, lagMs: fc.integer({ min: 0, max: 40 }) }), { maxLength: 120 }),
    });
    await fc.assert(
      fc.asyncProperty(jitteredArbitrary, async ({ setup, steps }) => {
        const limiter = createMemoryLimiter({ sweepIntervalMs: 7 });
        const admitted = new Map<string, number[]>(setup.map((scope) => [scope.id, []]));
        let latest = T0;
        for (const { pick, lagMs } of steps) {
          latest += pick.advanceMs;
          const chosen = pickScopes(setup, pick.pick);
          // A request that took its time up to one window before the latest one.
          const now = latest - Math.min(lagMs, ...chosen.map((scope) => scope.windowMs));
          const decision = await limiter.consume(chosen, now);
          if (decision.allowed) for (const scope of chosen) admitted.get(scope.id)!.push(now);
        }
        for (const scope of setup) {
          const times = admitted.get(scope.id)!.sort((a, b) => a - b);
          for (let i = 0; i + scope.limit < times.length; i++) {
            expect(times[i + scope.limit]! - times[i]!).toBeGreaterThanOrEqual(scope.windowMs);
          }
        }
      }),
    );
  });

  it('counts exactly when limits are far above the traffic and old timestamps are forgotten', async () => {
    // Limits of 60 to 200 over windows of a few milliseconds: the logs pass the size at which
    // they forget what is older than two windows, and requests lag the latest by up to a window.
    const wideArbitrary = fc.record({
      setup: fc
        .array(fc.tuple(fc.integer({ min: 60, max: 200 }), fc.integer({ min: 1, max: 12 })), {
          minLength: 1,
          maxLength: 3,
        })
        .map((specs) =>
          specs.map(([limit, windowMs], i): LimitScope => ({ name: `s${i}`, id: `scope:${i}`, limit, windowMs })),
        ),
      steps: fc.array(
        fc.record({
          pick: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
          advanceMs: fc.integer({ min: 0, max: 2 }),
          lagMs: fc.integer({ min: 0, max: 12 }),
        }),
        { minLength: 100, maxLength: 500 },
      ),
    });
    await fc.assert(
      fc.asyncProperty(wideArbitrary, async ({ setup, steps }) => {
        const limiter = createMemoryLimiter({ sweepIntervalMs: 5 });
        const admitted = new Map<string, number[]>(setup.map((scope) => [scope.id, []]));
        let latest = T0;
        for (const step of steps) {
          latest += step.advanceMs;
          const chosen = pickScopes(setup, step.pick);
          const now = latest - Math.min(step.lagMs, ...chosen.map((scope) => scope.windowMs));
          // The log records a lagging time as its newest, as the limiter does.
          const counted = (scope: LimitScope) => admitted.get(scope.id)!.filter((t) => t > now - scope.windowMs);
          const expected = chosen.every((scope) => counted(scope).length < scope.limit);
          const decision = await limiter.consume(chosen, now);
          expect(decision.allowed).toBe(expected);
          for (const [i, scope] of chosen.entries()) {
            const times = admitted.get(scope.id)!;
            if (decision.allowed) times.push(Math.max(now, times.at(-1) ?? now));
            expect(decision.scopes[i]!.remaining).toBe(Math.max(0, scope.limit - counted(scope).length));
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('changes no scope when it refuses', async () => {
    await fc.assert(
      fc.asyncProperty(runArbitrary, async ({ setup, steps }) => {
        // The second limiter never sees the requests the first refused: both must agree throughout.
        const seesAll = createMemoryLimiter({ sweepIntervalMs: 7 });
        const seesAdmitted = createMemoryLimiter({ sweepIntervalMs: 7 });
        let now = T0;
        for (const step of steps) {
          now += step.advanceMs;
          const chosen = pickScopes(setup, step.pick);
          const decision = await seesAll.consume(chosen, now);
          if (decision.allowed) expect(await seesAdmitted.consume(chosen, now)).toEqual(decision);
        }
        for (const scope of setup) {
          expect(await seesAll.consume([scope], now)).toEqual(await seesAdmitted.consume([scope], now));
        }
      }),
    );
  });

  it('admits a retry after retryAfterMs and not a millisecond before, without other traffic', async () => {
    await fc.assert(
      fc.asyncProperty(runArbitrary, async ({ setup, steps }) => {
        const limiter = createMemoryLimiter({ sweepIntervalMs: 7 });
        let now = T0;
        for (const step of steps) {
          now += step.advanceMs;
          const chosen = pickScopes(setup, step.pick);
          const decision = await limiter.consume(chosen, now);
          if (decision.allowed) continue;
          expect(decision.retryAfterMs).toBeGreaterThan(0);
          expect((await limiter.consume(chosen, now + decision.retryAfterMs - 1)).allowed).toBe(false);
          now += decision.retryAfterMs;
          expect((await limiter.consume(chosen, now)).allowed).toBe(true);
        }
      }),
    );
  });
});
