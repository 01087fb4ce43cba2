import { protocolError, TidingsError } from './errors.js';
import { credentialsBody, postText, readCredentials, readJson, tryFetch } from './http.js';
import type { TidingsEnvironment } from './options.js';
import type { BrowserCredentials } from './receipts.js';
import { again, retry, type Step, stepForFailure } from './step.js';
import type { TidingsNotification } from './types.js';

/** What one poll needs from the connection. */
export interface PollContext {
  url: string;
  fetch: typeof fetch;
  environment: Pick<TidingsEnvironment, 'setTimeout' | 'clearTimeout'>;
  /** Aborts the poll: the connection's to close it, and the poll's own timeout. */
  controller: AbortController;
  pollIntervalMs: number;
  /** The browser to poll for, or null to register one first. */
  browser: BrowserCredentials | null;
  onRegistered: (browser: BrowserCredentials) => void;
  onPolled: (notifications: TidingsNotification[]) => void;
}

/** A poll that has not answered in this long is abandoned and retried. */
const pollTimeoutMs = 30_000;

/**
 * One step of the polling fallback on `POST /v1/connect/{token}`: without a browser, register
 * one (201 with its id and secret); with one, fetch its pending notifications (200), which the
 * server then marks `sent`, or take the new browser the server registered instead (201).
 */
export async function pollOnce(context: PollContext): Promise<Step> {
  const { browser, environment, controller } = context;
  const timer = environment.setTimeout(() => controller.abort(), pollTimeoutMs);
  try {
    const init = { method: 'POST', signal: controller.signal };
    const response = await (browser
      ? postText(context.fetch, context.url, credentialsBody(browser), init)
      : tryFetch(context.fetch, context.url, init));
    if (response instanceof TidingsError) return retry(response);
    // 204: the browser was disconnected by request, for good.
    if (!response.ok || response.status === 204) return stepForFailure(response, browser !== null);
    const body = (await readJson(response)) as Record<string, unknown> | null;
    // 201 registers a browser: asked for, or because the server no longer knew ours (stale,
    // or another recipient's).
    const registered = response.status === 201 && readCredentials(body);
    if (registered) {
      context.onRegistered(registered);
      return again(0);
    }
    if (browser && Array.isArray(body?.notifications)) {
      context.onPolled(body.notifications);
      return again(context.pollIntervalMs);
    }
    return retry(protocolError('Bad poll answer'));
  } finally {
    environment.clearTimeout(timer);
  }
}
