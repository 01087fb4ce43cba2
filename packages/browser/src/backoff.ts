/** Largest delay bound, in milliseconds. */
const capMs = 30_000;

/**
 * The delay before retry number `attempt` (0-based): exponential backoff with full jitter, a
 * uniform draw in `[0, min(cap, base × 2^attempt))`, where `baseMs` bounds the first retry (the
 * server's `retry:` field replaces it). Full jitter spreads the reconnects of many tabs after a
 * server deploy instead of making them arrive in waves.
 */
export function backoffDelay(attempt: number, random: () => number, baseMs = 1000): number {
  const bound = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * bound);
}
