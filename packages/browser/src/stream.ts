import { withInbox, withPush } from './build-flags.js';
import {
  type ConnectionState,
  connectUrl,
  defaultHeartbeatMs,
  forgetBrowser,
  opened,
  save,
  watchdogMs,
} from './connection-state.js';
import { protocolError, TidingsError } from './errors.js';
import { readCredentials, tryFetch } from './http.js';
import { handleNotification } from './notifications.js';
import { createSseParser } from './sse-parser.js';
import { retry, type Step, StepKind, stepForFailure } from './step.js';

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

/** The stream's `ready` event: the browser it serves, and its heartbeat. A step ends the stream. */
const onReady = (s: ConnectionState, payload: unknown): Step | undefined => {
  const ready = payload as {
    browser_id?: unknown;
    browser_secret?: unknown;
    heartbeat_ms?: unknown;
    resumed?: unknown;
    recipient?: unknown;
  } | null;
  if (typeof ready?.browser_id !== 'string') return retry(protocolError('No browser_id'));
  const fresh = readCredentials(ready);
  // A new browser: the first connection, or a resume position the server no longer knew.
  if (fresh) s.ownBrowser = fresh;
  else if (s.ownBrowser?.browserId !== ready.browser_id) {
    forgetBrowser(s); // resumed a browser whose secret is lost: start a new one
    return retry(protocolError('Browser secret lost'));
  }
  if (withPush) s.pushControl?.answer(ready);
  if (withInbox && typeof ready.recipient === 'string') s.inboxRecipient = ready.recipient;
  const heartbeat = ready.heartbeat_ms;
  s.heartbeatMs = typeof heartbeat === 'number' && heartbeat > 0 ? heartbeat : defaultHeartbeatMs;
  opened(s, ready.resumed === true, 'sse');
  return undefined;
};

/**
 * Opens `GET /v1/connect/{token}` with `fetch` and reads it through the SSE parser. `fetch`
 * rather than EventSource, because EventSource hides the HTTP status (401, 403, 429 and its
 * Retry-After, 204) and gives up for good on any non-200. The resume position travels as the
 * `last_event_id` query parameter, not the `Last-Event-ID` header, which is not CORS-safelisted
 * and would add a preflight to every reconnect.
 */
export const streamOnce = async (s: ConnectionState): Promise<Step> => {
  const position = s.resumeId || (s.ownBrowser ? `${s.ownBrowser.browserId}.0` : '');
  const controller = new AbortController();
  let timer: unknown;
  const touch = () => {
    s.activeAt = s.now();
    s.clearTimeout(timer);
    timer = s.setTimeout(() => controller.abort(), watchdogMs(s));
  };
  /**
   * How a broken stream ends: stalled when aborted (by the watchdog, a wake or the phase: nothing
   * else aborts it before the end), or the `error` it broke with.
   */
  const broken = (error: TidingsError): Step =>
    controller.signal.aborted
      ? retry(new TidingsError('STREAM_STALLED', `No data for ${watchdogMs(s)} ms`), !s.openedAt)
      : retry(error);
  // A stream the phase ends (hidden, following, closed) counts as stalled too: its step is dropped.
  s.underWay = controller;
  touch();
  try {
    const url = connectUrl(s);
    const response = await tryFetch(s.fetch, position ? `${url}?last_event_id=${encodeURIComponent(position)}` : url, {
      headers: { Accept: 'text/event-stream' },
      signal: controller.signal,
    });
    if (response instanceof TidingsError) return broken(response);
    // Awaited here: the finally below aborts, and the problem body must be read before.
    if (response.status !== 200) return await stepForFailure(response, false);
    if (!/^text\/event-stream/i.test(response.headers.get('content-type') ?? '')) {
      return retry(protocolError('Not an event stream'));
    }
    if (!response.body) return { kind: StepKind.Fallback };
    /** Set by a `ready` event the protocol does not allow: it ends the stream. */
    let outcome: Step | undefined;
    const parser = createSseParser({
      lastEventId: position,
      onEvent: (event) => {
        if (outcome) return;
        if (event.type === 'ready') outcome = onReady(s, parseJson(event.data));
        else if (event.type === 'notification') {
          s.resumeId = event.id; // before the relay, which hands it to the other tabs
          handleNotification(s, parseJson(event.data));
        } else if (withInbox && event.type === 'inbox') s.inboxControl?.updated(parseJson(event.data), true);
      },
      onRetry: (milliseconds) => {
        s.retryBaseMs = Math.min(Math.max(milliseconds, 250), 30_000);
      },
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder(undefined, { ignoreBOM: true }); // UTF-8; the parser skips the BOM itself
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        touch();
        parser.feed(decoder.decode(value, { stream: true }));
        if (outcome) break;
        s.resumeId = parser.lastEventId;
        save(s);
      }
      return outcome ?? retry();
    } catch (cause) {
      return broken(new TidingsError('NETWORK_ERROR', 'Stream broke', { cause }));
    }
  } finally {
    // Releases the connection whichever way the stream ended, and stops the watchdog.
    controller.abort();
    s.clearTimeout(timer);
  }
};
