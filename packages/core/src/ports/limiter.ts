/** One scope a request counts against, e.g. its key, its project or its client IP. */
export interface LimitScope {
  /** The scope's kind, named in the RateLimit headers: `key`, `project`, `account`, `ip`… */
  name: string;
  /** The identity counted, unique across scopes, e.g. `key:key_01…`. */
  id: string;
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

/** The outcome of one consume: a refusal is a value, and it consumed nothing in any scope. */
export type LimitDecision =
  | { allowed: true; scopes: ScopeState[] }
  | { allowed: false; retryAfterMs: number; scopes: ScopeState[] };

/**
 * Counts requests. `consume` checks every scope and only then consumes one unit in each, as one
 * atomic step: if any scope is full nothing is consumed, and `retryAfterMs` is the time until
 * every full scope admits one more request.
 */
export interface Limiter {
  consume(scopes: readonly LimitScope[], now: number): Promise<LimitDecision>;
  close(): Promise<void>;
}
