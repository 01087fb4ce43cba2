import type { ScopeState } from '../../ports/limiter.js';

/** Below this many timestamps a log is too small to be worth trimming. */
const MIN_LOG_TO_TRIM = 64;

/**
 * The admitted timestamps of one scope, oldest first, in a ring buffer of at most `limit` slots
 * (of the largest limit the scope has had, if its limit fell).
 *
 * The scope is full at `now` exactly when its `limit`-th newest timestamp is still inside the
 * window, so the admit check is O(1), and a timestamp is overwritten only once it is older than
 * that one: the log always holds every timestamp still in the window. Below its limit the log
 * forgets timestamps older than two windows before its newest (the grace of {@link isIdle}), so
 * a scope whose limit is far above its traffic holds a few windows of that traffic, not all of it.
 */
export class SlidingLog {
  /**
   * The ring: appended to until it holds `limit` timestamps, then overwritten in a circle. A plain
   * array of numbers (stored unboxed by the engine, 8 bytes each) is allocated and grown far more
   * cheaply than a typed array, and most scopes are young: an IP that sends a handful of
   * requests costs a couple of hundred bytes, not `limit` slots.
   */
  private times: number[] = [];
  /** Index of the oldest timestamp. */
  private head = 0;
  /**
   * Requests admitted in any window. Changing it needs nothing else: the log keeps every
   * timestamp in the window, so a lower limit refuses at once and a higher one admits only the
   * difference.
   */
  limit: number;
  /** Length of the window in milliseconds; the log itself does not depend on it. */
  windowMs: number;

  /** Creates an empty log for a scope of `limit` requests per `windowMs`. */
  constructor(limit: number, windowMs: number) {
    this.limit = limit;
    this.windowMs = windowMs;
  }

  /** How many timestamps the log holds. */
  get size(): number {
    return this.times.length;
  }

  /** Whether the scope already admitted `limit` requests in the window that ends at `now`. */
  isFull(now: number): boolean {
    const held = this.times.length;
    return held >= this.limit && this.times[this.physical(held - this.limit)]! > now - this.windowMs;
  }

  /** Milliseconds from `now` until a full scope admits one more: its `limit`-th newest leaves. */
  waitMs(now: number): number {
    return this.times[this.physical(this.times.length - this.limit)]! + this.windowMs - now;
  }

  /**
   * Records an admission at `now`; the caller has checked {@link isFull}. A `now` older than the
   * newest timestamp (concurrent requests that took their time in one order and arrive in
   * another) is recorded as the newest, which keeps the log sorted and errs towards refusing.
   */
  record(now: number): void {
    const times = this.times;
    const held = times.length;
    let at = now;
    if (held > 0) {
      const newest = times[this.physical(held - 1)]!;
      if (newest > at) at = newest;
    }
    if (held < this.limit) {
      // Only a limit raised after the ring wrapped leaves the oldest away from the start.
      if (this.head !== 0) {
        this.times = times.slice(this.head).concat(times.slice(0, this.head));
        this.head = 0;
      }
      this.forgetAged(at);
      this.times.push(at);
      // Full, the ring stops growing: drop the spare capacity that growth by push leaves behind.
      if (this.times.length === this.limit) this.times = this.times.slice();
    } else {
      // isFull was false, so the limit-th newest has left the window, and the oldest with it.
      times[this.head] = at;
      this.head = this.head + 1 === held ? 0 : this.head + 1;
    }
  }

  /**
   * Whether the log can be forgotten at `latestNow`. It keeps one extra window of grace, so that
   * a request whose `now` lags the latest by up to a window still sees what it must count.
   */
  isIdle(latestNow: number): boolean {
    const held = this.times.length;
    return held === 0 || this.times[this.physical(held - 1)]! <= latestNow - 2 * this.windowMs;
  }

  /** The scope's state at `now`, as a decision reports it. */
  state(name: string, now: number): ScopeState {
    const held = this.times.length;
    const first = this.firstInWindow(now - this.windowMs);
    const inWindow = held - first;
    // One more is admitted when the oldest in the window leaves, or, if the scope is at or over
    // its limit, when the limit-th newest does.
    const next = Math.max(first, held - this.limit);
    return {
      name,
      limit: this.limit,
      windowMs: this.windowMs,
      remaining: Math.max(0, this.limit - inWindow),
      resetMs: inWindow === 0 ? 0 : this.times[this.physical(next)]! + this.windowMs - now,
    };
  }

  /**
   * Drops the timestamps no request can count any more (older than two windows before `newest`,
   * see {@link isIdle}), in bulk once at least half the log has aged: each timestamp is moved
   * O(1) times on average. Only for a log below its limit, whose ring has not wrapped.
   */
  private forgetAged(newest: number): void {
    const times = this.times;
    const cutoff = newest - 2 * this.windowMs;
    if (times.length < MIN_LOG_TO_TRIM || times[times.length >> 1]! > cutoff) return;
    this.times = times.slice(this.firstInWindow(cutoff));
  }

  /** Logical index of the first timestamp after `cutoff`: a binary search, the log being sorted. */
  private firstInWindow(cutoff: number): number {
    const held = this.times.length;
    if (held === 0 || this.times[this.head]! > cutoff) return 0;
    let low = 1;
    let high = held;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.times[this.physical(middle)]! > cutoff) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /** Index in the ring of the `logical`-th oldest timestamp (`logical` < the number held). */
  private physical(logical: number): number {
    const index = this.head + logical;
    return index >= this.times.length ? index - this.times.length : index;
  }
}
