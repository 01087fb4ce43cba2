/** Which CORS answer a route gives. */
export type CorsKind = 'browser' | 'api';

const EXPOSED =
  'Request-Id, RateLimit, RateLimit-Policy, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Idempotent-Replayed';

/** Headers every answer of a CORS-enabled route carries: any origin, never credentials. */
export const corsHeaders: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSED,
};

/** The headers of the answer to a preflight request (the edge adds the CORS ones every answer has). */
export function preflightHeaders(kind: CorsKind, methods: readonly string[]): Record<string, string> {
  const allowHeaders =
    kind === 'api' ? 'Authorization, Content-Type, Idempotency-Key' : 'Content-Type, Last-Event-ID, Cache-Control';
  return {
    'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
    'Access-Control-Allow-Headers': allowHeaders,
    'Access-Control-Max-Age': '600',
    Vary: 'Origin, Access-Control-Request-Headers',
  };
}
