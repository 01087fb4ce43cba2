/** Which CORS answer a route gives. */
export type CorsKind = 'browser' | 'api';

const EXPOSED = 'Request-Id, RateLimit, RateLimit-Policy, Retry-After, Idempotent-Replayed';

/** Headers every answer of a CORS-enabled route carries: any origin, never credentials. */
export const corsHeaders: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSED,
};

/** The answer to a preflight request. */
export function preflightResponse(kind: CorsKind, methods: readonly string[]): Response {
  const allowHeaders =
    kind === 'api' ? 'Authorization, Content-Type, Idempotency-Key' : 'Content-Type, Last-Event-ID, Cache-Control';
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders,
      'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
      'Access-Control-Allow-Headers': allowHeaders,
      'Access-Control-Max-Age': '600',
      Vary: 'Origin, Access-Control-Request-Headers',
    },
  });
}
