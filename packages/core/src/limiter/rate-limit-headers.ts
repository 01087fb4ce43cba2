import type { ScopeState } from '../ports/limiter.js';

/**
 * The `Retry-After` value for a wait of `ms`: whole seconds rounded up and at least 1, so that a
 * client that waits as told is never early and never told to retry at once.
 */
export function retryAfterSeconds(ms: number): number {
  if (Number.isNaN(ms) || ms === Number.POSITIVE_INFINITY) {
    throw new TypeError(`retryAfterSeconds needs a finite wait, got ${ms}`);
  }
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * The `RateLimit-Policy` and `RateLimit` headers (draft-ietf-httpapi-ratelimit-headers, structured
 * fields) for the scope nearest to exhaustion: the fewest remaining, then the longest reset.
 * Empty for no scopes.
 */
export function rateLimitHeaders(scopes: readonly ScopeState[]): Record<string, string> {
  let nearest: ScopeState | undefined;
  for (const scope of scopes) {
    if (
      nearest === undefined ||
      scope.remaining < nearest.remaining ||
      (scope.remaining === nearest.remaining && scope.resetMs > nearest.resetMs)
    ) {
      nearest = scope;
    }
  }
  if (nearest === undefined) return {};
  const name = structuredString(nearest.name);
  return {
    'RateLimit-Policy': `${name};q=${nearest.limit};w=${Math.ceil(nearest.windowMs / 1000)}`,
    RateLimit: `${name};r=${Math.max(0, nearest.remaining)};t=${Math.ceil(Math.max(0, nearest.resetMs) / 1000)}`,
  };
}

/** A structured-field sf-string (RFC 8941 §3.3.3): quoted, with `"` and `\` escaped. */
function structuredString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) {
    throw new TypeError(`A rate limit scope name must be printable ASCII, got ${JSON.stringify(value)}`);
  }
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}
