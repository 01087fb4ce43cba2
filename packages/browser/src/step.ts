import type { TidingsError } from './errors.js';
import { isRetryableStatus, problemError } from './http.js';
import type { TidingsCloseReason } from './types.js';

/** The kinds of {@link Step} (a `const enum`: the build writes numbers in their place). */
export enum StepKind {
  /** Healthy: go again after `delayMs` (the poll interval, or 0 after a token refresh). */
  Again,
  /** A failure worth retrying after a backoff (or the error's `Retry-After`). */
  Retry,
  /** 401: refresh the token, or forget a browser whose secret was refused. */
  Unauthorized,
  /** Streaming cannot work here: switch to polling. */
  Fallback,
  Stop,
}

/** How one try of a transport ended, and so what the connection loop does next. */
export type Step =
  | { kind: StepKind.Again; delayMs: number }
  | { kind: StepKind.Retry; error?: TidingsError; beforeReady?: boolean }
  | { kind: StepKind.Unauthorized; error: TidingsError; withBrowser: boolean }
  | { kind: StepKind.Fallback }
  | { kind: StepKind.Stop; reason: TidingsCloseReason; error?: TidingsError };

/** Go again after `delayMs`. */
export const again = (delayMs: number): Step => ({ kind: StepKind.Again, delayMs });

/** A failure worth retrying. */
export const retry = (error?: TidingsError, beforeReady?: boolean): Step => ({
  kind: StepKind.Retry,
  error,
  beforeReady,
});

/** Maps a non-2xx answer of a connect request to the next step. */
export async function stepForFailure(response: Response, withBrowser: boolean): Promise<Step> {
  if (response.status === 204) return { kind: StepKind.Stop, reason: 'disconnected' };
  const error = await problemError(response);
  if (response.status === 401) return { kind: StepKind.Unauthorized, error, withBrowser };
  if (isRetryableStatus(response.status)) return retry(error);
  return { kind: StepKind.Stop, reason: 'error', error };
}
