import { TidingsError } from './errors.js';
import type { BrowserCredentials } from './receipts.js';

/** `fetch` that turns a rejection into a `NETWORK_ERROR` value: a response, or the failure to get one. */
export async function tryFetch(
  fetchFunction: typeof fetch,
  url: string,
  init: RequestInit,
): Promise<Response | TidingsError> {
  try {
    return await fetchFunction(url, { credentials: 'omit', cache: 'no-store', ...init });
  } catch (cause) {
    return new TidingsError('NETWORK_ERROR', 'Network error', { cause });
  }
}

// JSON sent as text/plain: a CORS "simple request", so no preflight round trip, and a body that
// `navigator.sendBeacon(url, string)` can carry.
const textPlain = { 'Content-Type': 'text/plain' };

/** POSTs `body` as JSON in text/plain (see above). */
export const postText = (fetchFunction: typeof fetch, url: string, body: string, init?: RequestInit) =>
  tryFetch(fetchFunction, url, { method: 'POST', headers: textPlain, body, ...init });

/** The body that proves a browser: its id and secret, and `more`. */
export const credentialsBody = (browser: BrowserCredentials, more?: object) =>
  JSON.stringify({ browser_id: browser.browserId, browser_secret: browser.browserSecret, ...more });

/** A browser's id and secret from the server's JSON (`ready` event, poll registration), or null. */
export const readCredentials = (body: unknown): BrowserCredentials | null => {
  const value = body as { browser_id?: unknown; browser_secret?: unknown } | null;
  return typeof value?.browser_id === 'string' && typeof value.browser_secret === 'string'
    ? { browserId: value.browser_id, browserSecret: value.browser_secret }
    : null;
};

/** `Retry-After` as whole seconds; an HTTP date or garbage reads as null. */
export function retryAfterSeconds(response: Response): number | null {
  const value = response.headers.get('retry-after');
  return value && /^\d+$/.test(value.trim()) ? Number(value) : null;
}

/**
 * Turns a non-2xx answer into an error, reading the problem details body when there is one. An
 * answer without Tidings's problem details (a code) did not come from Tidings: a proxy's page, or
 * the app's own middleware in front of it (an auth check that answers 401 by itself). Its code
 * is `EXTERNAL_ERROR`, its message the status (`HTTP 401`), so that it is not mistaken for a token
 * Tidings refused.
 */
export async function problemError(response: Response): Promise<TidingsError> {
  // Not JSON (a proxy's HTML page) reads as {}: the status alone tells what to do.
  const problem = ((await readJson(response)) ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' && value ? value : null);
  return new TidingsError(
    text(problem.code) ?? 'EXTERNAL_ERROR',
    text(problem.detail) ?? text(problem.title) ?? `HTTP ${response.status}`,
    {
      status: response.status,
      requestId: text(problem.request_id) ?? response.headers.get('request-id'),
      retryAfterSeconds: retryAfterSeconds(response),
    },
  );
}

/** Reads a JSON body; null when it is not JSON. */
export async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    return null;
  }
}

/** True for failures worth retrying: rate limits, timeouts, server errors. */
export const isRetryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;
