import { withPush } from './build-flags.js';
import { type ConnectionState, connectUrl, opened } from './connection-state.js';
import { protocolError, TidingsError } from './errors.js';
import { credentialsBody, postText, readCredentials, readJson, tryFetch } from './http.js';
import { handleNotification } from './notifications.js';
import { again, retry, type Step, stepForFailure } from './step.js';

/** A poll that has not answered in this long is abandoned and retried. */
const pollTimeoutMs = 30_000;

/**
 * One step of the polling fallback on `POST /v1/connect/{token}`: without a browser, register
 * one (201 with its id and secret); with one, fetch its pending notifications (200), which the
 * server then marks `sent`, or take the new browser the server registered instead (201).
 */
export const pollOnce = async (s: ConnectionState): Promise<Step> => {
  const polled = s.ownBrowser;
  const controller = new AbortController();
  s.underWay = controller;
  const timer = s.setTimeout(() => controller.abort(), pollTimeoutMs);
  try {
    const init = { method: 'POST', signal: controller.signal };
    const url = connectUrl(s);
    const response = await (polled
      ? postText(s.fetch, url, credentialsBody(polled), init)
      : tryFetch(s.fetch, url, init));
    if (response instanceof TidingsError) return retry(response);
    // 204: the browser was disconnected by request, for good.
    if (!response.ok || response.status === 204) return stepForFailure(response, polled !== null);
    const body = (await readJson(response)) as Record<string, unknown> | null;
    // 201 registers a browser: asked for, or because the server no longer knew ours (stale,
    // or another recipient's).
    const registered = response.status === 201 && readCredentials(body);
    if (registered) {
      s.ownBrowser = registered;
      s.resumeId = '';
      if (withPush) s.pushControl?.answer(body);
      opened(s, false, 'poll');
      return again(0);
    }
    if (polled && Array.isArray(body?.notifications)) {
      for (const notification of body.notifications) handleNotification(s, notification);
      opened(s, true, 'poll');
      return again(s.pollIntervalMs);
    }
    return retry(protocolError('Bad poll answer'));
  } finally {
    s.clearTimeout(timer);
  }
};
