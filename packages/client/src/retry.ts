/** Bounds of the waits between retries, in milliseconds. */
export interface RetryDelayOptions {
  /** Bound of the first backoff draw. */
  initialRetryDelayMs: number;
  /** Largest backoff bound. */
  maxRetryDelayMs: number;
}

/**
 * How long to wait before retry number `retry` (0 for the first), or null when the server asks
 * for a longer wait than `maxRetryAfterMs` allows.
 *
 * - With a `Retry-After` of `retryAfterMs`: never earlier. It is the earliest time a retry can
 *   succeed, and clients told the same second should not all return in the same millisecond, so
 *   a full-jitter draw of up to `initialRetryDelayMs` is added on top.
 * - Without one: exponential backoff with full jitter, a uniform draw in
 *   `[0, min(maxRetryDelayMs, initialRetryDelayMs × 2^retry))`, so that the retries of many
 *   clients after an outage spread out instead of arriving in waves.
 */
export function retryDelayMs(
  retry: number,
  retryAfterMs: number | null,
  random: () => number,
  options: RetryDelayOptions & { maxRetryAfterMs: number },
): number | null {
  if (retryAfterMs !== null) {
    if (retryAfterMs > options.maxRetryAfterMs) return null;
    return retryAfterMs + Math.floor(random() * Math.min(options.initialRetryDelayMs, options.maxRetryDelayMs));
  }
  return Math.floor(random() * backoffBoundMs(retry, options));
}

/** The exclusive upper bound of the backoff draw before retry number `retry`. */
export function backoffBoundMs(retry: number, options: RetryDelayOptions): number {
  return Math.min(options.maxRetryDelayMs, options.initialRetryDelayMs * 2 ** Math.min(retry, 30));
}

/**
 * Whether an error answer may be retried. Never another 4xx: it says what is wrong with the
 * request, and sending it again would get the same answer. 409 IDEMPOTENCY_IN_PROGRESS is the
 * exception: the first request with the key still runs, and the retry gets its result.
 */
export function isRetryableAnswer(status: number, code: string | null): boolean {
  return status >= 500 || status === 429 || (status === 409 && code === 'IDEMPOTENCY_IN_PROGRESS');
}

/**
 * `Retry-After` in milliseconds: delay-seconds, or an HTTP date measured against `now`; null when
 * absent or unreadable.
 */
export function parseRetryAfterMs(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) || !/[a-z]/i.test(text) ? null : Math.max(0, date - now);
}
