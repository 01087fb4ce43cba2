/** One scope a request counts against, e.g. its key, its project or its client IP. */
export interface LimitScope {
  /** The scope's kind, named in the RateLimit headers: `key`, `project`, `account`, `ip`… */
  name: string;
  /** The identity counted, unique across scopes, e.g. `key:key_01…`. */
  id: string;
  /**
   * Scopes that are always counted together share a group, e.g. a key, its project and its
   * account share the account: a shared limiter keeps a group's counts in one place (one slot
   * of a Redis Cluster), so that it can decide for all of them in one atomic step.
   * @default the scope's own id
   */
  group?: string;
  /** Requests admitted in any window. */
  limit: number;
  windowMs: number;
}

/** The state of one scope after a decision. */
export interface ScopeState {
  name: string;
  limit: number;
  windowMs: number;
  /** Requests this scope would still admit now. */
  remaining: number;
  /** Milliseconds until this scope admits one more request than now (0 when it is empty). */
  resetMs: number;
}

/**
 * The outcome of one consume: a refusal is a value, and it consumed nothing in any scope. A
 * limiter that keeps its counts elsewhere (Redis) and cannot reach them, and was told to refuse
 * rather than guess, answers `unavailable`: the request is refused with 503, not 429.
 */
export type LimitDecision =
  | { allowed: true; scopes: ScopeState[] }
  | { allowed: false; unavailable?: false; retryAfterMs: number; scopes: ScopeState[] }
  | LimiterUnavailable;

/** The limiter could not decide: the request is refused, and may be retried after `retryAfterMs`. */
export interface LimiterUnavailable {
  allowed: false;
  unavailable: true;
  retryAfterMs: number;
  scopes: [];
}

/**
 * Counts requests. `consume` checks every scope and only then consumes one unit in each, as one
 * atomic step: if any scope is full nothing is consumed, and `retryAfterMs` is the time until
 * every full scope admits one more request.
 *
 * `now` is the caller's clock. A limiter shared by many processes may decide on a clock of its
 * own that all of them share (Redis's); its `retryAfterMs` and `resetMs` are then durations on
 * that clock, which is the one that decides the retry.
 */
export interface Limiter {
  consume(scopes: readonly LimitScope[], now: number): Promise<LimitDecision>;
  close(): Promise<void>;
}
