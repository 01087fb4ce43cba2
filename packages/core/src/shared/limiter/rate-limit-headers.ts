import type { ScopeState } from '../../ports/limiter.js';

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
 * How the rate limit headers are written: `draft`, the current draft's structured fields
 * (`RateLimit: "key";r=52;t=54`, `RateLimit-Policy: "key";q=60;w=60`); `draft-7`, its seventh
 * revision as express-rate-limit writes it (`RateLimit: limit=60, remaining=52, reset=54`,
 * `RateLimit-Policy: 60;w=60`); `legacy`, `X-RateLimit-Limit`, `X-RateLimit-Remaining` and
 * `X-RateLimit-Reset` (the reset as Unix time in seconds, as GitHub writes it).
 */
export type RateLimitHeaderForm = 'draft' | 'draft-7' | 'legacy';

/** The forms of {@link RateLimitHeaderForm}, for validating options. */
export const RATE_LIMIT_HEADER_FORMS: readonly RateLimitHeaderForm[] = ['draft', 'draft-7', 'legacy'];

/**
 * The rate limit headers (draft-ietf-httpapi-ratelimit-headers by default; see
 * {@link RateLimitHeaderForm}) for the scope nearest to exhaustion: the fewest remaining, then
 * the longest reset. Empty for no scopes. `now` places the legacy form's reset in time.
 */
export function rateLimitHeaders(
  scopes: readonly ScopeState[],
  form: RateLimitHeaderForm = 'draft',
  now = 0,
): Record<string, string> {
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
  const remaining = Math.max(0, nearest.remaining);
  const resetSeconds = Math.ceil(Math.max(0, nearest.resetMs) / 1000);
  const windowSeconds = Math.ceil(nearest.windowMs / 1000);
  if (form === 'draft-7') {
    return {
      'RateLimit-Policy': `${nearest.limit};w=${windowSeconds}`,
      RateLimit: `limit=${nearest.limit}, remaining=${remaining}, reset=${resetSeconds}`,
    };
  }
  if (form === 'legacy') {
    return {
      'X-RateLimit-Limit': String(nearest.limit),
      'X-RateLimit-Remaining': String(remaining),
      'X-RateLimit-Reset': String(Math.ceil((now + Math.max(0, nearest.resetMs)) / 1000)),
    };
  }
  const name = structuredString(nearest.name);
  return {
    'RateLimit-Policy': `${name};q=${nearest.limit};w=${windowSeconds}`,
    RateLimit: `${name};r=${remaining};t=${resetSeconds}`,
  };
}

/** A structured-field sf-string (RFC 8941 §3.3.3): quoted, with `"` and `\` escaped. */
function structuredString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) {
    throw new TypeError(`A rate limit scope name must be printable ASCII, got ${JSON.stringify(value)}`);
  }
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}
