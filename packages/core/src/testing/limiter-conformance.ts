import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LimitDecision, Limiter, LimitScope } from '../ports/limiter.js';

/** Options of {@link runLimiterConformance}. */
export interface LimiterConformanceOptions {
  /**
   * Scales the number of runs of each property, e.g. 0.3 for a limiter behind a network round
   * trip. @default 1
   */
  runsFactor?: number;
}

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 1);

const key: LimitScope = { name: 'key', id: 'key:k1', limit: 3, windowMs: MINUTE };
const project: LimitScope = { name: 'project', id: 'project:p1', limit: 5, windowMs: MINUTE };
const account: LimitScope = { name: 'account', id: 'account:a1', limit: 8, windowMs: MINUTE };
const scopes = [key, project, account];

function remaining(decision: LimitDecision, name: string): number | undefined {
  return decision.scopes.find((scope) => scope.name === name)?.remaining;
}

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

/**
 * A naive sliding log of the admitted times of each scope, which every decision of the
 * properties is compared with: admitted when every chosen scope holds fewer than its limit in
 * its window, and then recorded at its time in each.
 */
function naiveLog(setup: LimitScope[]) {
  const admitted = new Map<string, number[]>(setup.map((scope) => [scope.id, []]));
  const inWindow = (scope: LimitScope, now: number) => admitted.get(scope.id)!.filter((t) => t > now - scope.windowMs);
  return {
    admitted,
    /** Checks a decision about `chosen` at `now` against the log, then records it if admitted. */
    check(decision: LimitDecision, chosen: LimitScope[], now: number): void {
      expect(decision.allowed).toBe(chosen.every((scope) => inWindow(scope, now).length < scope.limit));
      if (decision.allowed) for (const scope of chosen) admitted.get(scope.id)!.push(now);
      for (const [i, scope] of chosen.entries()) {
        const held = inWindow(scope, now);
        const next = held[Math.max(0, held.length - scope.limit)];
        expect(decision.scopes[i]).toEqual({
          name: scope.name,
          limit: scope.limit,
          windowMs: scope.windowMs,
          remaining: Math.max(0, scope.limit - held.length),
          resetMs: next === undefined ? 0 : next + scope.windowMs - now,
        });
      }
    },
  };
}

/**
 * Registers the Limiter port's conformance tests (vitest and fast-check) for one limiter that
 * decides on the `now` it is given. `makeLimiter` is called for every test and every property
 * run and must return a limiter that has counted nothing; the suite closes it afterwards.
 *
 * The properties compare every decision with a naive sliding log: no span of a window ever
 * admits more than the limit, a refusal changes no scope, concurrent requests whose times arrive
 * out of order stay within the limit, and a retry after `retryAfterMs` is admitted.
 *
 * @example
 * runLimiterConformance('memory', () => createMemoryLimiter());
 */
export function runLimiterConformance(
  name: string,
  makeLimiter: () => Limiter | Promise<Limiter>,
  options: LimiterConformanceOptions = {},
): void {
  const runsFactor = options.runsFactor ?? 1;
  const runs = (count: number) => Math.max(5, Math.round(count * runsFactor));

  /** Runs `body` with a fresh limiter, and closes it whatever happens. */
  async function withLimiter<T>(body: (limiter: Limiter) => Promise<T>): Promise<T> {
    const limiter = await makeLimiter();
    try {
      return await body(limiter);
    } finally {
      await limiter.close();
    }
  }

  describe(`Limiter conformance: ${name}`, () => {
    it('admits exactly the limit in a window, then refuses', () =>
      withLimiter(async (limiter) => {
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
      }));

    it('admits again exactly when the oldest request leaves the window', () =>
      withLimiter(async (limiter) => {
        for (let i = 0; i < 3; i++) await limiter.consume([key], T0 + i * 100);
        expect((await limiter.consume([key], T0 + MINUTE - 1)).allowed).toBe(false);
        const admitted = await limiter.consume([key], T0 + MINUTE);
        expect(admitted.allowed).toBe(true);
        // Left in the window: T0+100, T0+200 and the new one; the next to leave is T0+100.
        expect(admitted.scopes[0]).toMatchObject({ remaining: 0, resetMs: 100 });
        expect((await limiter.consume([key], T0 + MINUTE + 99)).allowed).toBe(false);
      }));

    it('lets the tightest of three scopes decide, and a refusal consumes in none', () =>
      withLimiter(async (limiter) => {
        for (let i = 0; i < 3; i++) expect((await limiter.consume(scopes, T0 + i)).allowed).toBe(true);
        const refused = await limiter.consume(scopes, T0 + 5);
        expect(refused.allowed).toBe(false);
        expect(refused.scopes.map((scope) => scope.remaining)).toEqual([0, 2, 5]);
        // Another key of the same project and account sees the counts the refusal left untouched.
        const sibling = await limiter.consume([{ ...key, id: 'key:k2' }, project, account], T0 + 6);
        expect(sibling.allowed).toBe(true);
        expect(remaining(sibling, 'project')).toBe(1);
        expect(remaining(sibling, 'account')).toBe(4);
      }));

    it('retries after the longest wait among the full scopes', () =>
      withLimiter(async (limiter) => {
        const tightKey = { ...key, limit: 1 };
        const tightProject = { ...project, limit: 2 };
        await limiter.consume([tightProject], T0);
        await limiter.consume([tightKey, tightProject], T0 + 1_000);
        const refused = await limiter.consume([tightKey, tightProject], T0 + 2_000);
        // The project frees a slot at T0+60s, the key at T0+61s: the request needs both.
        expect(refused).toMatchObject({ allowed: false, retryAfterMs: MINUTE - 1_000 });
        expect((await limiter.consume([tightKey, tightProject], T0 + MINUTE + 999)).allowed).toBe(false);
        expect((await limiter.consume([tightKey, tightProject], T0 + MINUTE + 1_000)).allowed).toBe(true);
      }));

    it('reports an empty scope with its whole limit and no reset', () =>
      withLimiter(async (limiter) => {
        await limiter.consume([key], T0);
        const refused = await limiter.consume([{ ...key, limit: 1 }, project], T0 + 1);
        expect(refused.scopes[1]).toEqual({ name: 'project', limit: 5, windowMs: MINUTE, remaining: 5, resetMs: 0 });
      }));

    it('counts up to a limit of 600 and refuses the 601st', () =>
      withLimiter(async (limiter) => {
        const big = { ...account, limit: 600 };
        for (let i = 0; i < 600; i++) expect((await limiter.consume([big], T0 + i)).allowed).toBe(true);
        expect(await limiter.consume([big], T0 + 600)).toMatchObject({ allowed: false, retryAfterMs: MINUTE - 600 });
        expect((await limiter.consume([big], T0 + MINUTE + 1)).allowed).toBe(true);
        expect((await limiter.consume([big], T0 + MINUTE + 1)).allowed).toBe(true);
        expect((await limiter.consume([big], T0 + MINUTE + 1)).allowed).toBe(false);
      }));

    it('counts every request in the window when a scope limit changes, so no burst opens', () =>
      withLimiter(async (limiter) => {
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
      }));

    it('admits exactly the limit of many concurrent requests', () =>
      withLimiter(async (limiter) => {
        const decisions = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            limiter.consume(
              [
                { ...key, id: `key:k${i % 2}`, limit: 30 },
                { ...project, limit: 25 },
              ],
              T0,
            ),
          ),
        );
        expect(decisions.filter((decision) => decision.allowed)).toHaveLength(25);
        const after = await limiter.consume([{ ...project, limit: 26 }], T0);
        expect(after).toMatchObject({ allowed: true, scopes: [{ remaining: 0 }] });
      }));

    it('rejects misuse: a scope twice, a bad limit or window, a non-finite now', () =>
      withLimiter(async (limiter) => {
        await expect(limiter.consume([key, { ...key, name: 'again' }], T0)).rejects.toThrow(/twice/);
        await expect(limiter.consume([{ ...key, id: 'x', limit: 0 }], T0)).rejects.toThrow(/limit/);
        await expect(limiter.consume([{ ...key, id: 'y', limit: 1.5 }], T0)).rejects.toThrow(/limit/);
        await expect(limiter.consume([{ ...key, id: 'z', windowMs: 0 }], T0)).rejects.toThrow(/windowMs/);
        await expect(limiter.consume([key], Number.NaN)).rejects.toThrow(/now/);
      }));

    it('admits an empty list of scopes', () =>
      withLimiter(async (limiter) => {
        expect(await limiter.consume([], T0)).toEqual({ allowed: true, scopes: [] });
      }));

    describe('properties', () => {
      it('decides exactly like a naive sliding log, so no window ever holds more than the limit', async () => {
        await fc.assert(
          fc.asyncProperty(runArbitrary, fc.boolean(), ({ setup, steps }, changeLimits) =>
            withLimiter(async (limiter) => {
              const log = naiveLog(setup);
              let now = T0;
              for (const [n, step] of steps.entries()) {
                now += step.advanceMs;
                // Optionally, a configuration that moves each scope's limit around between calls.
                const limits = setup.map((scope, i) =>
                  changeLimits ? 1 + ((n + i * 3 + step.advanceMs) % 4) : scope.limit,
                );
                const chosen = pickScopes(
                  setup.map((scope, i) => ({ ...scope, limit: limits[i]! })),
                  step.pick,
                );
                log.check(await limiter.consume(chosen, now), chosen, now);
              }
              if (changeLimits) return;
              for (const scope of setup) {
                const times = log.admitted.get(scope.id)!;
                // No span [t, t + windowMs) holds limit + 1 admissions.
                for (let i = 0; i + scope.limit < times.length; i++) {
                  expect(times[i + scope.limit]! - times[i]!).toBeGreaterThanOrEqual(scope.windowMs);
                }
              }
            }),
          ),
          { numRuns: runs(300) },
        );
      });

      it('decides consumes made at once, at one time or rising times, exactly as one after the other', async () => {
        const batchesArbitrary = fc.record({
          setup: setupArbitrary,
          batches: fc.array(
            fc.record({
              pick: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
              advanceMs: fc.integer({ min: 0, max: 15 }),
              gapsMs: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3 })), {
                minLength: 1,
                maxLength: 12,
              }),
            }),
            { maxLength: 30 },
          ),
        });
        await fc.assert(
          fc.asyncProperty(batchesArbitrary, ({ setup, batches }) =>
            withLimiter(async (limiter) => {
              const log = naiveLog(setup);
              let now = T0;
              for (const batch of batches) {
                now += batch.advanceMs;
                const chosen = pickScopes(setup, batch.pick);
                const nows = batch.gapsMs.map((gap) => {
                  now += gap;
                  return now;
                });
                // Asked in one turn: a limiter may decide them together, in the order asked.
                const decisions = await Promise.all(nows.map((at) => limiter.consume(chosen, at)));
                for (const [k, decision] of decisions.entries()) log.check(decision, chosen, nows[k]!);
              }
            }),
          ),
          { numRuns: runs(200) },
        );
      });

      it('stays within the limit when concurrent requests bring their times out of order', async () => {
        const jitteredArbitrary = fc.record({
          setup: setupArbitrary,
          steps: fc.array(fc.record({ pick: stepArbitrary, lagMs: fc.integer({ min: 0, max: 40 }) }), {
            maxLength: 120,
          }),
        });
        await fc.assert(
          fc.asyncProperty(jitteredArbitrary, ({ setup, steps }) =>
            withLimiter(async (limiter) => {
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
          ),
          { numRuns: runs(100) },
        );
      });

      it('counts exactly when limits are far above the traffic and old timestamps are forgotten', async () => {
        // Limits of 60 to 200 over windows of a few milliseconds: logs pass the size at which a
        // limiter may forget what is older than two windows, and requests lag by up to a window.
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
          fc.asyncProperty(wideArbitrary, ({ setup, steps }) =>
            withLimiter(async (limiter) => {
              const admitted = new Map<string, number[]>(setup.map((scope) => [scope.id, []]));
              let latest = T0;
              for (const step of steps) {
                latest += step.advanceMs;
                const chosen = pickScopes(setup, step.pick);
                const now = latest - Math.min(step.lagMs, ...chosen.map((scope) => scope.windowMs));
                // A lagging time is recorded as the scope's newest, which errs towards refusing.
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
          ),
          { numRuns: runs(100) },
        );
      });

      it('changes no scope when it refuses', async () => {
        await fc.assert(
          fc.asyncProperty(runArbitrary, ({ setup, steps }) =>
            withLimiter((seesAll) =>
              // The second limiter never sees the requests the first refused: both must agree.
              withLimiter(async (seesAdmitted) => {
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
            ),
          ),
          { numRuns: runs(100) },
        );
      });

      it('admits a retry after retryAfterMs and not a millisecond before, without other traffic', async () => {
        await fc.assert(
          fc.asyncProperty(runArbitrary, ({ setup, steps }) =>
            withLimiter(async (limiter) => {
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
          ),
          { numRuns: runs(100) },
        );
      });
    });
  });
}
