import type { TidingsError } from './errors.js';
import { isRetryableStatus, problemError } from './http.js';
import type { TidingsCloseReason } from './types.js';

/** How one try of a transport ended, and so what the connection loop does next. */
export type Step =
  /** Healthy: go again after `delayMs` (the poll interval, or 0 after a token refresh). */
  | { kind: 'again'; delayMs: number }
  /** A failure worth retrying after a backoff (or the error's `Retry-After`). */
  | { kind: 'retry'; error?: TidingsError; beforeReady?: boolean }
  /** 401: refresh the token, or forget a browser whose secret was refused. */
  | { kind: 'unauthorized'; error: TidingsError; withBrowser: boolean }
  /** Streaming cannot work here: switch to polling. */
  | { kind: 'fallback' }
  | { kind: 'stop'; reason: TidingsCloseReason; error?: TidingsError };

/** Go again after `delayMs`. */
export const again = (delayMs: number): Step => ({ kind: 'again', delayMs });

/** A failure worth retrying. */
export const retry = (error?: TidingsError, beforeReady?: boolean): Step => ({ kind: 'retry', error, beforeReady });

/** Maps a non-2xx answer of a connect request to the next step. */
export async function stepForFailure(response: Response, withBrowser: boolean): Promise<Step> {
  if (response.status === 204) return { kind: 'stop', reason: 'disconnected' };
  const error = await problemError(response);
  if (response.status === 401) return { kind: 'unauthorized', error, withBrowser };
  if (isRetryableStatus(response.status)) return retry(error);
  return { kind: 'stop', reason: 'error', error };
}
