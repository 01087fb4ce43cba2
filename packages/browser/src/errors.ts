/**
 * Codes of a {@link TidingsError}. The server's problem codes (`UNAUTHORIZED`, `FORBIDDEN`,
 * `PROJECT_SUSPENDED`, `RATE_LIMITED`, …) pass through unchanged; the rest are the SDK's own.
 */
export type TidingsErrorCode =
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'PROJECT_SUSPENDED'
  | 'RATE_LIMITED'
  /** `fetch` rejected: offline, DNS, CORS, or the connection dropped. */
  | 'NETWORK_ERROR'
  /**
   * An error status whose answer is not Tidings's problem details, so it did not come from
   * Tidings: the app's own middleware in front of it (an auth check answering 401), a proxy's
   * error page. `status` holds the status.
   */
  | 'EXTERNAL_ERROR'
  /** The server answered something the protocol does not allow (wrong content type, bad JSON). */
  | 'PROTOCOL_ERROR'
  /** Nothing, not even a heartbeat, arrived for 2.5 heartbeats: the stream was dropped. */
  | 'STREAM_STALLED'
  /** `getToken()` threw or returned no token. */
  | 'TOKEN_FAILED'
  /** A batch of receipts could not be sent after its retries. */
  | 'RECEIPTS_FAILED'
  /** `enablePush()`: this browser has no service workers, no Push API or no Notification API. */
  | 'PUSH_UNSUPPORTED'
  /** `enablePush()`: the user (or the browser) refused notifications. */
  | 'PUSH_DENIED'
  /** `enablePush()`: the server has Web Push off (its connect answer had no VAPID key). */
  | 'PUSH_NOT_CONFIGURED'
  /**
   * `enablePush()` before the connection first opened: there is no browser to subscribe yet; or an
   * inbox request (`connection.inbox`) on a closed connection.
   */
  | 'NOT_CONNECTED'
  /** `enablePush()`: registering the worker, subscribing or storing for the worker failed (see `cause`). */
  | 'PUSH_FAILED'
  | (string & {});

/** Facts of a failure, as the server or the SDK reports them. */
export interface TidingsErrorInit {
  status?: number | null;
  requestId?: string | null;
  retryAfterSeconds?: number | null;
  cause?: unknown;
}

/**
 * Every failure the SDK reports through `onError` and in a `closed` status. `fatal` is true when
 * the failure stopped the connection for good; otherwise the SDK is already retrying.
 */
export class TidingsError extends Error {
  // `declare` fields are assigned in the constructor: no class-field helper in the ES2020 build.
  /** A stable code to branch on; see {@link TidingsErrorCode}. */
  declare readonly code: TidingsErrorCode;
  /** The HTTP status, when the failure was an HTTP answer. */
  declare readonly status: number | null;
  /** The server's `request_id`, to quote in a support request. */
  declare readonly requestId: string | null;
  /** `Retry-After` of a 429, in seconds. */
  declare readonly retryAfterSeconds: number | null;
  /** True when the connection stopped because of this error. */
  declare fatal: boolean;

  constructor(code: TidingsErrorCode, message: string, init: TidingsErrorInit = {}) {
    super(message, { cause: init.cause });
    this.name = 'TidingsError';
    this.code = code;
    this.status = init.status ?? null;
    this.requestId = init.requestId ?? null;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.fatal = false;
  }
}

/** A `PROTOCOL_ERROR`: the server answered something the protocol does not allow. */
export const protocolError = (message: string) => new TidingsError('PROTOCOL_ERROR', message);
