import type { z } from 'zod';
import type { fieldErrorSchema, problemSchema } from '../delivery/object-schemas.js';

/** Every error code of the public contract (docs/api.md#errors). */
export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'PROJECT_SUSPENDED'
  | 'EMAIL_NOT_VERIFIED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'NO_CONNECTED_BROWSER'
  | 'BROWSER_DISCONNECTED'
  | 'PUSH_NOT_CONFIGURED'
  | 'IDEMPOTENCY_IN_PROGRESS'
  | 'PROJECT_LIMIT_REACHED'
  | 'KEY_LIMIT_REACHED'
  | 'WEBHOOK_ENDPOINT_LIMIT_REACHED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'IDEMPOTENCY_MISMATCH'
  | 'PUSH_ENDPOINT_NOT_ALLOWED'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'SERVICE_UNAVAILABLE';

/** HTTP status and title of each code: the one place where a code meets HTTP. */
export const errorCodes = {
  VALIDATION_FAILED: { status: 400, title: 'The request is not valid' },
  UNAUTHORIZED: { status: 401, title: 'Authentication failed' },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  PROJECT_SUSPENDED: { status: 403, title: 'The project is suspended' },
  EMAIL_NOT_VERIFIED: { status: 403, title: 'The account email is not verified' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  NO_CONNECTED_BROWSER: { status: 409, title: 'The recipient has no connected browser' },
  BROWSER_DISCONNECTED: { status: 409, title: 'The browser is disconnected' },
  PUSH_NOT_CONFIGURED: { status: 409, title: 'Web Push is not configured on this server' },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, title: 'A request with this idempotency key is in progress' },
  PROJECT_LIMIT_REACHED: { status: 409, title: 'The account has reached its project limit' },
  KEY_LIMIT_REACHED: { status: 409, title: 'The project has reached its active key limit' },
  WEBHOOK_ENDPOINT_LIMIT_REACHED: { status: 409, title: 'The project has reached its webhook endpoint limit' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'The request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  IDEMPOTENCY_MISMATCH: { status: 422, title: 'The idempotency key was used with another request' },
  PUSH_ENDPOINT_NOT_ALLOWED: { status: 422, title: 'The push endpoint is not allowed' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  INTERNAL_ERROR: { status: 500, title: 'Internal error' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<ErrorCode, { status: number; title: string }>;

/**
 * The HTTP statuses of Tidings' errors (400, 401, 403, …, 503), a union rather than `number`, so
 * that a framework's typed status takes one as it is: Hono's `c.json(body, error.status)`.
 */
export type ErrorStatus = (typeof errorCodes)[ErrorCode]['status'];

/** One invalid field of a request, in a VALIDATION_FAILED problem. */
export type FieldError = z.infer<typeof fieldErrorSchema>;

/** The single error class of Tidings: a code from {@link errorCodes}, a detail, and extras. */
export class TidingsError extends Error {
  readonly code: ErrorCode;
  readonly status: ErrorStatus;
  readonly errors: FieldError[] | undefined;
  /** Headers the HTTP answer must carry, such as Retry-After. */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    detail: string,
    extras: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'TidingsError';
    this.code = code;
    this.status = errorCodes[code].status;
    this.errors = extras.errors;
    this.headers = extras.headers ?? {};
  }
}

/** RFC 9457 problem details as Tidings renders them. */
export type Problem = z.infer<typeof problemSchema>;

/** Renders an error as problem details. */
export function toProblem(error: TidingsError, requestId: string): Problem {
  const { title, status } = errorCodes[error.code];
  const problem: Problem = {
    type: `urn:tidings:problem:${error.code.toLowerCase().replaceAll('_', '-')}`,
    title,
    status,
    detail: error.message,
    code: error.code,
    request_id: requestId,
  };
  if (error.errors) problem.errors = error.errors;
  return problem;
}
