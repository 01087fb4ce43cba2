/** Bounds of the reconnect delay. */
export interface BackoffOptions {
  /**
   * Delay bound of the first retry, in milliseconds (the server's `retry:` field replaces it).
   * @default 1000
   */
  baseMs?: number;
  /**
   * Largest delay bound, in milliseconds.
   * @default 30000
   */
  capMs?: number;
}

/**
 * The delay before retry number `attempt` (0-based): exponential backoff with full jitter, a
 * uniform draw in `[0, min(cap, base × 2^attempt))`. Full jitter spreads the reconnects of many
 * tabs after a server deploy instead of making them arrive in waves.
 */
export function backoffDelay(attempt: number, random: () => number, options: BackoffOptions = {}): number {
  const baseMs = options.baseMs ?? 1000;
  const capMs = options.capMs ?? 30_000;
  const bound = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * bound);
}
