import { backoffDelay } from './backoff.js';
import { withInbox, withPush } from './build-flags.js';
import { Input, Phase } from './connection-machine.js';
import {
  type ConnectionState,
  createConnectionState,
  forgetBrowser,
  receipt,
  report,
  setStatus,
  sleep,
  stop,
  to,
  watchdogMs,
} from './connection-state.js';
import { joinTabs } from './connection-tabs.js';
import { protocolError, TidingsError } from './errors.js';
import { postText } from './http.js';
import { createInbox } from './inbox.js';
import { type ConnectOptions, resolveOptions, type TidingsHost } from './options.js';
import { pollOnce } from './poll.js';
import { type Step, StepKind } from './step.js';
import { streamOnce } from './stream.js';
import type { TidingsConnection } from './types.js';

/** A connection that stayed open this long resets the backoff; a shorter one keeps it growing. */
const healthyAfterMs = 10_000;
/** Stalls before the first event that make `auto` give up streaming (a buffering proxy). */
const stallsBeforeFallback = 2;

/** Asks the app for a new token; a failure closes the connection, which ends the loop. */
const refreshToken = async (s: ConnectionState) => {
  try {
    // There is a getToken: a connection without a token has one, and a 401 asks only with one.
    const fresh = await s.getToken!();
    if (typeof fresh !== 'string' || !fresh) throw new TypeError('No token');
    s.token = fresh;
  } catch (cause) {
    stop(s, 'error', new TidingsError('TOKEN_FAILED', 'getToken failed', { cause }));
  }
};

/**
 * Decides what a step means: the wait before the next try (a `Retry-After` of the server's
 * makes it a hold, which a wake does not cut short), or undefined when the loop ends.
 */
const afterStep = async (s: ConnectionState, step: Step, attempt: number): Promise<number | undefined> => {
  switch (step.kind) {
    case StepKind.Stop:
      return stop(s, step.reason, step.error);
    case StepKind.Again:
      return step.delayMs;
    case StepKind.Fallback:
      if (s.transport === 'sse') return stop(s, 'error', protocolError('No stream body'));
      s.polling = true;
      return 0;
    case StepKind.Unauthorized:
      if (s.getToken && !s.tokenRefreshes) {
        s.tokenRefreshes = 1;
        await refreshToken(s);
        return 0;
      }
      // 401 on a poll with a browser may be about the browser's secret, not the token: start anew once.
      if (step.withBrowser) {
        forgetBrowser(s);
        return 0;
      }
      return stop(s, 'error', step.error);
  }
  const { error } = step;
  if (step.beforeReady && s.transport === 'auto' && ++s.stalls >= stallsBeforeFallback) {
    s.polling = true;
  }
  const retryAfterSeconds = error?.retryAfterSeconds;
  const held = retryAfterSeconds != null;
  if (held) to(s, Input.Hold);
  const delayMs = held
    ? // Retry-After plus up to a second of jitter, so that the tabs it held back do not return at once.
      retryAfterSeconds! * 1000 + Math.floor(s.random() * 1000)
    : s.wakeNow
      ? 0
      : backoffDelay(attempt, s.random, s.retryBaseMs);
  if (error) report(s, error);
  setStatus(s, 'reconnecting', { attempt: attempt + 1, delayMs, error });
  return delayMs;
};

/** The loop: the phase picks the effect, a try (stream or poll), a wait, or a sleep until woken. */
const run = async (s: ConnectionState) => {
  let attempt = 0;
  setStatus(s, 'connecting');
  while (s.phase !== Phase.Closed) {
    // Hidden, or following another tab: until a `pageshow` or an election ends the sleep.
    if (s.phase !== Phase.Trying) {
      await sleep(s);
      continue;
    }
    // What the last try left: a stale stream's time would make a wake cut this try short.
    s.openedAt = s.activeAt = undefined;
    // A follower needs no token: it asks for one when it becomes the leader, then checks again.
    if (!s.token) {
      await refreshToken(s);
      continue;
    }
    const step = await (s.polling ? pollOnce(s) : streamOnce(s));
    if (s.phase !== Phase.Trying) continue;
    // (Never opened: NaN, which compares false.)
    if (s.now() - s.openedAt! >= healthyAfterMs) attempt = 0;
    const delayMs = await afterStep(s, step, attempt);
    s.wakeNow = false;
    if (delayMs === undefined) return;
    attempt = step.kind === StepKind.Retry ? attempt + 1 : 0;
    to(s, Input.Wait); // a hold stays one
    if (delayMs) await sleep(s, delayMs);
    to(s, Input.Elapse);
  }
};

/** A tab shown or a network back: checks the stream, and ends a backoff wait. */
const wake = (s: ConnectionState) => {
  // A stream that received nothing for longer than the watchdog allows (the timers of a frozen tab lag).
  if (s.phase === Phase.Trying && s.now() - s.activeAt! > watchdogMs(s)) {
    s.wakeNow = true;
    s.underWay!.abort(); // as stalled
  } else to(s, Input.Wake);
};

/**
 * The page's life: a tab that becomes visible or a network that comes back wakes the loop; a
 * hidden tab sends its receipts now (it may be killed without notice); a page that leaves or
 * enters the back/forward cache stops the stream until it comes back.
 */
const watchPage = (s: ConnectionState) => {
  const { host } = s;
  const document = host?.document;
  const listeners: [
    Pick<TidingsHost, 'addEventListener' | 'removeEventListener'> | null | undefined,
    string,
    (event: Event) => void,
  ][] = [
    [document, 'visibilitychange', () => (document!.visibilityState === 'visible' ? wake(s) : s.receipts.flush())],
    [host, 'online', () => wake(s)],
    [
      host,
      'pagehide',
      () => {
        to(s, Input.Hide);
        s.receipts.flush();
      },
    ],
    [host, 'pageshow', (event) => (event as PageTransitionEvent).persisted && to(s, Input.Show)],
  ];
  for (const [target, type, listener] of listeners) target?.addEventListener(type, listener);
  s.unwatch = () => {
    for (const [target, type, listener] of listeners) target?.removeEventListener(type, listener);
  };
};

/**
 * Connects this page to Tidings as one browser of the token's recipient, and keeps it connected:
 * reconnects with backoff, resumes after a reload, drops duplicate deliveries and sends receipts.
 * Throws a `TypeError` at once on a misuse (no `onNotification`, no token source, a bad URL).
 */
export function connect(options: ConnectOptions): TidingsConnection {
  const s = createConnectionState(resolveOptions(options));
  if (withInbox) s.inboxControl = createInbox(s);
  watchPage(s);
  joinTabs(s);

  // Started after connect() returns, so that no callback runs before the page holds the handle.
  Promise.resolve(s)
    .then(run)
    .catch((cause) => stop(s, 'error', new TidingsError('INTERNAL_ERROR', 'Unexpected failure', { cause })));

  const connection = {
    browserId: () => s.ownBrowser?.browserId ?? null,
    close: () => stop(s, 'close'),
    // Closes, forgets the browser, and tells the server with `POST /v1/browsers/{id}/disconnect`.
    disconnect: () => {
      const gone = s.ownBrowser;
      stop(s, 'disconnect');
      forgetBrowser(s);
      if (!gone) return;
      if (withPush) s.pushControl?.forget(gone.browserId);
      // With `navigator.sendBeacon`, which the browser delivers even while the page unloads; without
      // it (or when its queue is full), a keepalive fetch.
      const url = `${s.baseUrl}/v1/browsers/${encodeURIComponent(gone.browserId)}/disconnect`;
      const body = JSON.stringify({ browser_secret: gone.browserSecret });
      let queued = false;
      try {
        queued = s.host?.navigator?.sendBeacon?.(url, body) === true;
      } catch {
        // Some browsers throw instead of returning false (a blocked URL, a page already gone).
      }
      if (!queued) void postText(s.fetch, url, body, { keepalive: true });
    },
  } as TidingsConnection;
  // delivered(), displayed(), clicked(), dismissed(): one receipt each.
  for (const type of ['delivered', 'displayed', 'clicked', 'dismissed'] as const) {
    connection[type] = (attemptId) => receipt(s, type, attemptId);
  }
  const push = s.pushControl;
  if (withPush && push) {
    connection.enablePush = push.enable;
    connection.disablePush = push.disable;
  }
  if (withInbox) connection.inbox = s.inboxControl!.handle;
  return connection;
}
