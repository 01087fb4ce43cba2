import type { LimitDecision, Limiter, LimitScope, ScopeState } from '../../ports/limiter.js';
import { SlidingLog } from './sliding-log.js';

/** Options of {@link createMemoryLimiter}. */
export interface MemoryLimiterOptions {
  /**
   * How often, in the time passed to `consume`, scopes with nothing left to count are forgotten.
   * The sweep runs inside a `consume` (no timer keeps the process alive). @default 60000
   */
  sweepIntervalMs?: number;
}

/** A {@link Limiter} held in this process's memory, with a count of the scopes it keeps. */
export interface MemoryLimiter extends Limiter {
  /** How many scope ids the limiter holds timestamps for: idle ones leave at the next sweep. */
  scopeCount(): number;
}

/**
 * Creates an exact sliding-log limiter for one process: no span of a scope's window ever admits
 * more than its limit, and a refusal consumes nothing in any scope.
 *
 * Each scope id keeps the timestamps of its admitted requests, at most `limit` of them (8 bytes
 * each), in a ring buffer, so a decision is O(1) per scope plus an O(log limit) search for the
 * reported state. A scope's limit and window may change between calls and it stays exact.
 *
 * `now` should come from one clock. Requests whose `now` lags the latest one seen by up to a
 * window, as concurrent requests that read the clock in one order and arrive in another, are
 * still counted safely, erring towards refusing; a larger jump back may be admitted too freely.
 */
export function createMemoryLimiter(options: MemoryLimiterOptions = {}): MemoryLimiter {
  const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
  if (!(sweepIntervalMs > 0 && Number.isFinite(sweepIntervalMs))) {
    throw new TypeError(`sweepIntervalMs must be a positive number, got ${sweepIntervalMs}`);
  }
  return new SlidingLogLimiter(sweepIntervalMs);
}

/**
 * The limiter behind {@link createMemoryLimiter}. A class rather than a closure because this is
 * the hot path: object fields hold numbers in place, where a closure's `let` would box a new one
 * on every call.
 */
class SlidingLogLimiter implements MemoryLimiter {
  private readonly logs = new Map<string, SlidingLog>();
  /**
   * The logs of the scopes being decided, reused between calls so that a decision allocates only
   * what it returns; safe because a decision runs synchronously from start to end.
   */
  private readonly picked: SlidingLog[] = [];
  private latestNow = Number.NEGATIVE_INFINITY;
  private nextSweepAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly sweepIntervalMs: number) {}

  async consume(scopes: readonly LimitScope[], now: number): Promise<LimitDecision> {
    return this.decide(scopes, now);
  }

  async close(): Promise<void> {
    this.logs.clear();
    this.picked.length = 0;
    this.latestNow = Number.NEGATIVE_INFINITY;
    this.nextSweepAt = Number.NEGATIVE_INFINITY;
  }

  scopeCount(): number {
    return this.logs.size;
  }

  private decide(scopes: readonly LimitScope[], now: number): LimitDecision {
    if (!Number.isFinite(now)) throw new TypeError(`now must be a finite number, got ${now}`);
    if (now > this.latestNow) this.latestNow = now;
    if (this.latestNow >= this.nextSweepAt) this.sweep();

    // Check every scope before touching any: this is what makes the step atomic.
    const picked = this.picked;
    const length = scopes.length;
    let allowed = true;
    let retryAfterMs = 0;
    for (let i = 0; i < length; i++) {
      const scope = scopes[i]!;
      const log = this.logFor(scope);
      for (let j = 0; j < i; j++) {
        if (picked[j] === log) throw new TypeError(`Scope ${scope.id} appears twice in one consume`);
      }
      picked[i] = log;
      if (log.isFull(now)) {
        allowed = false;
        retryAfterMs = Math.max(retryAfterMs, log.waitMs(now));
      }
    }

    const states = new Array<ScopeState>(length);
    for (let i = 0; i < length; i++) {
      const log = picked[i]!;
      if (allowed) log.record(now);
      states[i] = log.state(scopes[i]!.name, now);
    }
    return allowed ? { allowed, scopes: states } : { allowed, retryAfterMs, scopes: states };
  }

  private logFor(scope: LimitScope): SlidingLog {
    let log = this.logs.get(scope.id);
    if (log === undefined) {
      checkScope(scope);
      log = new SlidingLog(scope.limit, scope.windowMs);
      this.logs.set(scope.id, log);
      return log;
    }
    if (log.limit !== scope.limit || log.windowMs !== scope.windowMs) {
      checkScope(scope);
      log.limit = scope.limit;
      log.windowMs = scope.windowMs;
    }
    return log;
  }

  /**
   * Forgets idle logs; run from `consume` once per interval, so no timer is needed. It visits
   * every log, but a log outlives a sweep only while it holds a timestamp from the last two
   * windows, so a sweep's work is bounded by the consumes of the last two windows and one
   * interval: amortised O(1) per consume.
   */
  private sweep(): void {
    for (const [id, log] of this.logs) if (log.isIdle(this.latestNow)) this.logs.delete(id);
    this.nextSweepAt = this.latestNow + this.sweepIntervalMs;
  }
}

/** Bad scope configuration is a bug in the caller, so it throws rather than deciding. */
function checkScope(scope: LimitScope): void {
  if (!(Number.isInteger(scope.limit) && scope.limit > 0)) {
    throw new TypeError(`Scope ${scope.id}: limit must be a positive integer, got ${scope.limit}`);
  }
  if (!(scope.windowMs > 0 && Number.isFinite(scope.windowMs))) {
    throw new TypeError(`Scope ${scope.id}: windowMs must be a positive number, got ${scope.windowMs}`);
  }
}
