import { type ErrorCode, errorCodes } from '../../pipeline/errors.js';
import { schemaRef } from './refs.js';
import type { JsonSchema, OpenApiHeader, OpenApiReference, OpenApiResponse } from './types.js';

/** When each code is answered: the text of the reference, beside the code table of errors.ts. */
const WHEN: Record<ErrorCode, string> = {
  VALIDATION_FAILED: 'a body, header or parameter is invalid; `errors` lists each field',
  UNAUTHORIZED:
    'the API key is missing, malformed, unknown or revoked; or the connect token is unknown or expired; or the browser secret is wrong',
  FORBIDDEN: 'a live key was sent with an `Origin` header (from a browser)',
  PROJECT_SUSPENDED: 'the key, token or browser belongs to a suspended project',
  EMAIL_NOT_VERIFIED: 'creating a project on an unverified account (admin API)',
  NOT_FOUND: 'the id is unknown, or belongs to another project',
  METHOD_NOT_ALLOWED: 'the path does not have this method (`Allow` lists those it has)',
  NO_CONNECTED_BROWSER: 'the recipient has no connected browser (live and test)',
  BROWSER_DISCONNECTED: 'the browser is disconnected (by request, as stale, or after its push subscription was gone)',
  PUSH_NOT_CONFIGURED: 'this server sends no Web Push: it has no VAPID subject configured',
  IDEMPOTENCY_IN_PROGRESS: 'a request with the same Idempotency-Key is still running; retry after `Retry-After`',
  PROJECT_LIMIT_REACHED: 'an 11th project in an account (admin API)',
  KEY_LIMIT_REACHED: 'an 11th active key in a project (admin API)',
  WEBHOOK_ENDPOINT_LIMIT_REACHED: 'an 11th webhook endpoint in a project (admin API)',
  PAYLOAD_TOO_LARGE: 'the body is over 32 KiB',
  UNSUPPORTED_MEDIA_TYPE: 'the body is not sent with an accepted media type',
  IDEMPOTENCY_MISMATCH: 'the Idempotency-Key was used with another body or another mode',
  PUSH_ENDPOINT_NOT_ALLOWED:
    "the push subscription's endpoint is not an `https:` URL on a push service this server allows",
  RATE_LIMITED: 'a rate limit is exceeded; nothing was done; retry after `Retry-After`',
  INTERNAL_ERROR: 'something unexpected happened; it is logged with the request id',
  SERVICE_UNAVAILABLE:
    'the shared limiter cannot be reached and the server is set to refuse meanwhile; nothing was done; retry after `Retry-After`',
};

/** A valid request id for the examples. */
const EXAMPLE_REQUEST_ID = 'req_01jdv5cz00k2a7d3m9qx4w8t6e';

/** The problem details an error code is answered with, as an example. */
export function problemExample(code: ErrorCode): JsonSchema {
  const { status, title } = errorCodes[code];
  const example: JsonSchema = {
    type: `urn:tidings:problem:${code.toLowerCase().replaceAll('_', '-')}`,
    title,
    status,
    detail: WHEN[code].charAt(0).toUpperCase() + WHEN[code].slice(1).replace(/;.*$/, ''),
    code,
    request_id: EXAMPLE_REQUEST_ID,
  };
  if (code === 'VALIDATION_FAILED') {
    example.detail = 'title: Too small: expected string to have >=1 characters';
    example.errors = [{ path: 'title', message: 'Too small: expected string to have >=1 characters' }];
  }
  return example;
}

/** When each error code is answered, for the reference. */
export function whenCode(code: ErrorCode): string {
  return WHEN[code];
}

const ref = (name: string): OpenApiReference => ({ $ref: `#/components/headers/${name}` });

/** Headers of every answer; `rateLimited` adds those of requests that carry an API key. */
export function commonHeaders(rateLimited: boolean): Record<string, OpenApiHeader | OpenApiReference> {
  return rateLimited
    ? {
        'Request-Id': ref('RequestId'),
        RateLimit: ref('RateLimit'),
        'RateLimit-Policy': ref('RateLimitPolicy'),
        'X-RateLimit-Limit': ref('XRateLimitLimit'),
        'X-RateLimit-Remaining': ref('XRateLimitRemaining'),
        'X-RateLimit-Reset': ref('XRateLimitReset'),
      }
    : { 'Request-Id': ref('RequestId') };
}

/** A JSON success answer of a component schema. */
export function jsonResponse(
  description: string,
  schemaName: string,
  headers: Record<string, OpenApiHeader | OpenApiReference>,
): OpenApiResponse {
  return { description, headers, content: { 'application/json': { schema: schemaRef(schemaName) } } };
}

/**
 * The error answers of an operation, one per status: problem details whose `code` is one of
 * those the operation can answer with that status, with an example of each.
 */
export function problemResponses(codes: readonly ErrorCode[], rateLimited: boolean): Record<string, OpenApiResponse> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...codes, 'INTERNAL_ERROR' as const]) {
    const { status } = errorCodes[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, OpenApiResponse> = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers = commonHeaders(rateLimited);
    if (status === 429 || status === 503) headers['Retry-After'] = ref('RetryAfterRequired');
    else if (statusCodes.includes('IDEMPOTENCY_IN_PROGRESS')) headers['Retry-After'] = ref('RetryAfter');
    const examples: Record<string, { summary: string; value: unknown }> = {};
    for (const code of statusCodes) examples[code] = { summary: WHEN[code], value: problemExample(code) };
    responses[String(status)] = {
      description: statusCodes.map((code) => `\`${code}\`: ${WHEN[code]}.`).join(' '),
      headers,
      content: {
        'application/problem+json': {
          schema: { allOf: [schemaRef('Problem')], properties: { code: { enum: statusCodes } } },
          examples,
        },
      },
    };
  }
  return responses;
}
