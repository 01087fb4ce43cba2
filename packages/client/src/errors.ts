import type { FieldError, NotificationObject, ProblemDetails } from './types.js';

/** The codes the server answers with (docs/api.md, "Errors"), passed through unchanged. */
export type ServerErrorCode =
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

/** The codes of failures the client reports itself: no answer, or none it understands. */
export type ClientErrorCode =
  /** `fetch` rejected or the answer broke off: DNS, refused connection, reset. Retried. */
  | 'NETWORK_ERROR'
  /** No answer within `timeoutMs`. Retried. */
  | 'REQUEST_TIMEOUT'
  /** The caller's `signal` aborted the call. Never retried. */
  | 'ABORTED'
  /** An error status without a problem body (e.g. a proxy's HTML page); `status` tells which. */
  | 'HTTP_ERROR'
  /** A success status whose body is not the JSON object expected. */
  | 'INVALID_RESPONSE'
  /** `waitUntilFinal` ran out of time; the error is a {@link TidingsWaitTimeoutError}. */
  | 'WAIT_TIMEOUT'
  /**
   * `webhooks.verify` refused a message: a header missing, a timestamp out of tolerance, or no
   * signature that matches. Answer the delivery 400: it is not from this Tidings server.
   */
  | 'WEBHOOK_INVALID';

/** Every code a {@link TidingsError} can carry. */
export type TidingsErrorCode = ServerErrorCode | ClientErrorCode;

/** Facts of a failure besides its code and message. */
export interface TidingsErrorInit {
  status?: number | null;
  requestId?: string | null;
  retryAfter?: number | null;
  problem?: ProblemDetails | null;
  cause?: unknown;
}

/**
 * Every failure of the client. Branch on `code`; `status` is the HTTP status when the server
 * answered; quote `requestId` in a support request.
 */
export class TidingsError extends Error {
  /** A stable code to branch on. */
  readonly code: TidingsErrorCode;
  /** The HTTP status, or null when no answer came. */
  readonly status: number | null;
  /** The server's request id (`req_…`), or null when no answer came. */
  readonly requestId: string | null;
  /** The answer's `Retry-After` in seconds (429 and 409 IDEMPOTENCY_IN_PROGRESS carry one), else null. */
  readonly retryAfter: number | null;
  /** The RFC 9457 problem the server answered, or null. */
  readonly problem: ProblemDetails | null;
  /** The invalid fields of a VALIDATION_FAILED answer; empty otherwise. */
  readonly errors: FieldError[];

  constructor(code: TidingsErrorCode, message: string, init: TidingsErrorInit = {}) {
    super(message, { cause: init.cause });
    this.name = 'TidingsError';
    this.code = code;
    this.status = init.status ?? null;
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
    this.problem = init.problem ?? null;
    this.errors = init.problem?.errors ?? [];
  }
}

/** `waitUntilFinal` ran out of time before every attempt was final. */
export class TidingsWaitTimeoutError extends TidingsError {
  /** The notification as last read: its attempts tell which browsers have not answered. */
  readonly notification: NotificationObject;

  constructor(notification: NotificationObject, timeoutMs: number) {
    const pending = notification.attempts.filter((attempt) => !attempt.final).length;
    super('WAIT_TIMEOUT', `${notification.id} was still pending after ${timeoutMs} ms (${pending} attempts not final)`);
    this.name = 'TidingsWaitTimeoutError';
    this.notification = notification;
  }
}
