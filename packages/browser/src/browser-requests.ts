import { TidingsError } from './errors.js';
import { credentialsBody, isRetryableStatus, postText, problemError } from './http.js';
import type { TidingsHost } from './options.js';
import type { BrowserCredentials, Receipt, SendOutcome } from './receipts.js';

/** Posts one batch of receipts to `POST /v1/events`; `keepalive` lets it outlive the page. */
export async function sendReceipts(
  fetchFunction: typeof fetch,
  baseUrl: string,
  browser: BrowserCredentials,
  events: Receipt[],
): Promise<SendOutcome> {
  const response = await postText(fetchFunction, `${baseUrl}/v1/events`, credentialsBody(browser, { events }), {
    keepalive: true,
  });
  if (response instanceof TidingsError) return { ok: false, retry: true, error: response };
  if (response.ok) return { ok: true };
  return { ok: false, retry: isRetryableStatus(response.status), error: await problemError(response) };
}

/**
 * Sends `POST /v1/browsers/{id}/disconnect` with `navigator.sendBeacon`, which the browser
 * delivers even while the page unloads; without it (or when its queue is full), a keepalive fetch.
 */
export function sendDisconnect(
  host: TidingsHost | null,
  fetchFunction: typeof fetch,
  baseUrl: string,
  browser: BrowserCredentials,
): void {
  const url = `${baseUrl}/v1/browsers/${encodeURIComponent(browser.browserId)}/disconnect`;
  const body = JSON.stringify({ browser_secret: browser.browserSecret });
  let queued = false;
  try {
    queued = host?.navigator?.sendBeacon?.(url, body) === true;
  } catch {
    // Some browsers throw instead of returning false (a blocked URL, a page already gone).
  }
  if (!queued) void postText(fetchFunction, url, body, { keepalive: true });
}
