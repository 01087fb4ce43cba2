import { backoffDelay } from './backoff.js';
import { withPush } from './build-flags.js';
import { Input, Phase, transition } from './connection-machine.js';
import { protocolError, TidingsError } from './errors.js';
import {
  credentialsBody,
  isRetryableStatus,
  postText,
  problemError,
  readCredentials,
  readJson,
  tryFetch,
} from './http.js';
import { type ConnectOptions, resolveOptions, type TidingsHost } from './options.js';
import { createPushControl } from './push/push-control.js';
import { type BrowserCredentials, createReceiptBatcher } from './receipts.js';
import { createRecentIds } from './recent-ids.js';
import { createSseParser } from './sse-parser.js';
import { again, retry, type Step, StepKind, stepForFailure } from './step.js';
import { loadState, saveState, storageKey } from './stored-state.js';
import { safeUrl } from './system-notification.js';
import { createTabElection, type LeaderMessage, type TabElection, TabRole } from './tab-election.js';
import type {
  TidingsCloseReason,
  TidingsConnection,
  TidingsNotification,
  TidingsReceiptType,
  TidingsStatus,
  TidingsStatusDetail,
  TidingsTransport,
} from './types.js';

const defaultHeartbeatMs = 15_000;
/** The watchdog's allowance: 2.5 heartbeats of silence mean a dead stream. */
const watchdogFactor = 2.5;
/** A connection that stayed open this long resets the backoff; a shorter one keeps it growing. */
const healthyAfterMs = 10_000;
/** Stalls before the first event that make `auto` give up streaming (a buffering proxy). */
const stallsBeforeFallback = 2;
const rememberedIds = 1000;
const persistedIds = 50;
/** A poll that has not answered in this long is abandoned and retried. */
const pollTimeoutMs = 30_000;

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

/**
 * Connects this page to Tidings as one browser of the token's recipient, and keeps it connected:
 * reconnects with backoff, resumes after a reload, drops duplicate deliveries and sends receipts.
 * Throws a `TypeError` at once on a misuse (no `onNotification`, no token source, a bad URL).
 */
export function connect(options: ConnectOptions): TidingsConnection {
  const config = resolveOptions(options);
  const { environment } = config;
  const key = storageKey(config.baseUrl);
  const stored = loadState(config.storage, key);
  const seen = createRecentIds(rememberedIds, stored?.seen);
  let browser: BrowserCredentials | null = stored?.browser ?? null;
  let lastEventId = stored?.lastEventId ?? '';
  let token = config.token;
  let transport: TidingsTransport = config.transport === 'poll' ? 'poll' : 'sse';
  let heartbeatMs = defaultHeartbeatMs;
  let retryBaseMs = 1000;
  let status: TidingsStatus = 'connecting';
  /** Where the loop is (see connection-machine.ts); every change goes through `to`. */
  let phase = Phase.Trying;
  let wakeNow = false;
  let openedAt = 0;
  let tokenRefreshed = false;
  let stalls = 0;
  /** The try under way: a stream (which can tell that it went stale), or a poll's controller. */
  let current: { abort(): void; isStale?(): boolean; stall?(): void } | null = null;
  let endSleep: (() => void) | null = null;
  let lastDetail: TidingsStatusDetail | undefined;
  /** Shared with the other tabs when there is a recipient and the browser can (see the end). */
  let election: TabElection | null = null;
  /**
   * Every change of phase. What a phase does ends with it: the try under way is aborted and the
   * loop's sleep ends, so that the loop goes on with what the new phase does.
   */
  const to = (input: Input) => {
    const next = transition(phase, input);
    if (next === phase) return;
    phase = next;
    current?.abort();
    endSleep?.();
  };

  // The app's callbacks must not break the loop; their errors surface as uncaught ones instead.
  const safely = <A extends unknown[]>(callback: ((...args: A) => void) | undefined, ...args: A) => {
    try {
      callback?.(...args);
    } catch (error) {
      environment.setTimeout(() => {
        throw error;
      }, 0);
    }
  };
  const report = (error: TidingsError) => safely(config.onError, error);
  const setStatus = (next: TidingsStatus, detail?: TidingsStatusDetail) => {
    status = next;
    lastDetail = detail;
    safely(config.onStatus, next, detail);
    election?.post();
  };
  const save = () =>
    saveState(config.storage, key, {
      browser,
      lastEventId,
      seen: seen.newest(persistedIds),
    });
  const forgetBrowser = () => {
    browser = null;
    lastEventId = '';
    save();
  };

  /**
   * Web Push (push/push-control.ts); null in the script-tag build without it. Every use is behind
   * `if (withPush)`, a constant the minifier folds, so that build keeps none of them.
   */
  const push = withPush
    ? createPushControl({
        baseUrl: config.baseUrl,
        fetch: config.fetch,
        host: environment.host,
        storage: config.storage,
        storageKey: key,
        browser: () => browser,
        now: environment.now,
        report,
      })
    : null;

  const receipts = createReceiptBatcher({
    // One batch to `POST /v1/events`; `keepalive` lets it outlive the page.
    send: async (target, events) => {
      const response = await postText(
        config.fetch,
        `${config.baseUrl}/v1/events`,
        credentialsBody(target, { events }),
        { keepalive: true },
      );
      if (response instanceof TidingsError) return { ok: false, retry: true, error: response };
      if (response.ok) return { ok: true };
      return { ok: false, retry: isRetryableStatus(response.status), error: await problemError(response) };
    },
    environment,
    onError: report,
  });
  const receipt = (type: TidingsReceiptType, attemptId: string) => {
    if (typeof attemptId !== 'string' || !attemptId) throw new TypeError(`Tidings ${type}(): give an attempt id`);
    if (browser) receipts.add(browser, { type, attempt_id: attemptId, at: new Date(environment.now()).toISOString() });
  };

  /** A notification from the server (`fromServer`), or relayed by the leader tab, which sent its receipt. */
  const handleNotification = (payload: unknown, fromServer = true) => {
    const notification = payload as TidingsNotification;
    // The payload may be anything, null included: with a string attempt_id it is an object.
    const attemptId = (payload as TidingsNotification | null)?.attempt_id;
    if (typeof attemptId !== 'string') return report(protocolError('No attempt_id'));
    if (seen.add(attemptId)) {
      safely(config.onNotification, notification);
      // One system notification per browser: the tab that got it from the server shows it, through
      // the Notification API when the page already has permission. Where pages cannot construct
      // notifications (Chrome on Android wants a service worker) nothing shows.
      const { host } = environment;
      const NotificationApi = host?.Notification;
      if (config.systemNotifications && fromServer && NotificationApi?.permission === 'granted') {
        try {
          const shown = new NotificationApi(notification.title, {
            body: notification.body ?? undefined,
            icon: notification.icon ?? undefined,
            tag: notification.tag ?? undefined,
            data: notification.data,
          });
          shown.onshow = () => receipt('displayed', attemptId);
          shown.onclick = (event) => {
            event.preventDefault();
            receipt('clicked', attemptId);
            host!.focus?.();
            const url = safeUrl(notification.url, host!.location?.href);
            if (url) host!.open?.(url, '_blank', 'noopener');
            shown.close();
          };
        } catch {
          // The constructor throws where only service workers may show notifications.
        }
      }
    }
    if (!fromServer) return;
    if (withPush) push?.handed(attemptId);
    election?.post({ notification });
    // A duplicate still gets its receipt: the server sends again only what it has no receipt for.
    if (config.autoDelivered ?? true) receipt('delivered', attemptId);
  };

  const opened = (resumed: boolean, via: TidingsTransport) => {
    openedAt = environment.now();
    tokenRefreshed = false;
    stalls = 0;
    save();
    if (withPush) push?.sync();
    // A follower that takes over was open through the former leader: it reports its own opening.
    if ((status !== 'open' || lastDetail?.leader === false) && browser) {
      setStatus('open', { browserId: browser.browserId, resumed, transport: via, leader: election ? true : undefined });
    }
  };

  const onReady = (payload: unknown): Step | undefined => {
    const ready = payload as {
      browser_id?: unknown;
      browser_secret?: unknown;
      heartbeat_ms?: unknown;
      resumed?: unknown;
    } | null;
    if (typeof ready?.browser_id !== 'string') return retry(protocolError('No browser_id'));
    const fresh = readCredentials(ready);
    // A new browser: the first connection, or a resume position the server no longer knew.
    if (fresh) browser = fresh;
    else if (browser?.browserId !== ready.browser_id) {
      forgetBrowser(); // resumed a browser whose secret is lost: start a new one
      return retry(protocolError('Browser secret lost'));
    }
    if (withPush) push?.answer(ready);
    const heartbeat = ready.heartbeat_ms;
    heartbeatMs = typeof heartbeat === 'number' && heartbeat > 0 ? heartbeat : defaultHeartbeatMs;
    opened(ready.resumed === true, 'sse');
    return undefined;
  };

  const connectUrl = () => `${config.baseUrl}/v1/connect/${encodeURIComponent(token ?? '')}`;

  /**
   * Opens `GET /v1/connect/{token}` with `fetch` and reads it through the SSE parser. `fetch`
   * rather than EventSource, because EventSource hides the HTTP status (401, 403, 429 and its
   * Retry-After, 204) and gives up for good on any non-200. The resume position travels as the
   * `last_event_id` query parameter, not the `Last-Event-ID` header, which is not CORS-safelisted
   * and would add a preflight to every reconnect.
   */
  const streamOnce = async (): Promise<Step> => {
    const position = lastEventId || (browser ? `${browser.browserId}.0` : '');
    const controller = new AbortController();
    /** The silence after which the stream counts as dead (read on every chunk). */
    const watchdogMs = () => heartbeatMs * watchdogFactor;
    let lastActivityAt = environment.now();
    let stalled = false;
    let sawReady = false;
    let timer: unknown = null;

    const stall = () => {
      stalled = true;
      controller.abort();
    };
    const touch = () => {
      lastActivityAt = environment.now();
      environment.clearTimeout(timer);
      timer = environment.setTimeout(stall, watchdogMs());
    };
    /** How a broken stream ends: stalled (the watchdog aborted it), or the `error` it broke with. */
    const broken = (error: TidingsError): Step =>
      stalled ? retry(new TidingsError('STREAM_STALLED', `No data for ${watchdogMs()} ms`), !sawReady) : retry(error);

    current = {
      abort: () => controller.abort(),
      // Nothing arrived for longer than the watchdog allows (the timers of a frozen tab lag).
      isStale: () => environment.now() - lastActivityAt > watchdogMs(),
      stall,
    };
    touch();
    try {
      const response = await tryFetch(
        config.fetch,
        position ? `${connectUrl()}?last_event_id=${encodeURIComponent(position)}` : connectUrl(),
        { headers: { Accept: 'text/event-stream' }, signal: controller.signal },
      );
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
          if (event.type === 'ready') {
            sawReady = true;
            outcome = onReady(parseJson(event.data));
          } else if (event.type === 'notification') {
            lastEventId = event.id; // before the relay, which hands it to the other tabs
            handleNotification(parseJson(event.data));
          }
        },
        onRetry: (milliseconds) => {
          retryBaseMs = Math.min(Math.max(milliseconds, 250), 30_000);
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
          lastEventId = parser.lastEventId;
          save();
        }
      } catch (cause) {
        return broken(new TidingsError('NETWORK_ERROR', 'Stream broke', { cause }));
      }
      return outcome ?? retry();
    } finally {
      // Releases the connection whichever way the stream ended, and stops the watchdog.
      controller.abort();
      environment.clearTimeout(timer);
    }
  };

  /**
   * One step of the polling fallback on `POST /v1/connect/{token}`: without a browser, register
   * one (201 with its id and secret); with one, fetch its pending notifications (200), which the
   * server then marks `sent`, or take the new browser the server registered instead (201).
   */
  const pollNow = async (): Promise<Step> => {
    const polled = browser;
    const controller = new AbortController();
    current = controller;
    const timer = environment.setTimeout(() => controller.abort(), pollTimeoutMs);
    try {
      const init = { method: 'POST', signal: controller.signal };
      const response = await (polled
        ? postText(config.fetch, connectUrl(), credentialsBody(polled), init)
        : tryFetch(config.fetch, connectUrl(), init));
      if (response instanceof TidingsError) return retry(response);
      // 204: the browser was disconnected by request, for good.
      if (!response.ok || response.status === 204) return stepForFailure(response, polled !== null);
      const body = (await readJson(response)) as Record<string, unknown> | null;
      // 201 registers a browser: asked for, or because the server no longer knew ours (stale,
      // or another recipient's).
      const registered = response.status === 201 && readCredentials(body);
      if (registered) {
        browser = registered;
        lastEventId = '';
        if (withPush) push?.answer(body);
        opened(false, 'poll');
        return again(0);
      }
      if (polled && Array.isArray(body?.notifications)) {
        for (const notification of body.notifications) handleNotification(notification);
        opened(true, 'poll');
        return again(config.pollIntervalMs);
      }
      return retry(protocolError('Bad poll answer'));
    } finally {
      environment.clearTimeout(timer);
    }
  };

  /** Waits `milliseconds` (forever without), or until `endSleep`. */
  const sleep = (milliseconds?: number) =>
    new Promise<void>((resolve) => {
      if (milliseconds === 0) return resolve();
      let timer: unknown = null;
      const end = () => {
        environment.clearTimeout(timer);
        endSleep = null;
        resolve();
      };
      endSleep = end;
      if (milliseconds) timer = environment.setTimeout(end, milliseconds);
    });

  const stop = (reason: TidingsCloseReason, error?: TidingsError): undefined => {
    if (phase === Phase.Closed) return;
    to(Input.Close);
    stopWatching();
    receipts.flush();
    if (reason === 'disconnected') {
      if (withPush && browser) push?.forget(browser.browserId);
      forgetBrowser();
    }
    if (error) {
      error.fatal = true;
      report(error);
    }
    setStatus('closed', { reason, error });
    election?.close(); // after the status, which tells the other tabs why
  };

  const refreshToken = async (): Promise<boolean> => {
    try {
      const fresh = await config.getToken?.();
      if (typeof fresh !== 'string' || !fresh) throw new TypeError('No token');
      token = fresh;
      return true;
    } catch (cause) {
      stop('error', new TidingsError('TOKEN_FAILED', 'getToken failed', { cause }));
      return false;
    }
  };

  /**
   * Decides what a step means: the wait before the next try (a `Retry-After` of the server's
   * makes it a hold, which a wake does not cut short), or undefined when the loop ends.
   */
  const afterStep = async (step: Step, attempt: number): Promise<number | undefined> => {
    switch (step.kind) {
      case StepKind.Stop:
        return stop(step.reason, step.error);
      case StepKind.Again:
        return step.delayMs;
      case StepKind.Fallback:
        if (config.transport === 'sse') return stop('error', protocolError('No stream body'));
        transport = 'poll';
        return 0;
      case StepKind.Unauthorized:
        if (config.getToken && !tokenRefreshed) {
          tokenRefreshed = true;
          return (await refreshToken()) ? 0 : undefined;
        }
        // 401 on a poll with a browser may be about the browser's secret, not the token: start anew once.
        if (step.withBrowser) {
          forgetBrowser();
          return 0;
        }
        return stop('error', step.error);
    }
    const { error } = step;
    if (step.beforeReady && config.transport === 'auto' && ++stalls >= stallsBeforeFallback) transport = 'poll';
    const retryAfterSeconds = error?.retryAfterSeconds;
    const held = retryAfterSeconds != null;
    if (held) to(Input.Hold);
    const delayMs = held
      ? // Retry-After plus up to a second of jitter, so that the tabs it held back do not return at once.
        retryAfterSeconds! * 1000 + Math.floor(environment.random() * 1000)
      : wakeNow
        ? 0
        : backoffDelay(attempt, environment.random, retryBaseMs);
    if (error) report(error);
    setStatus('reconnecting', { attempt: attempt + 1, delayMs, error });
    return delayMs;
  };

  const run = async () => {
    let attempt = 0;
    while (phase !== Phase.Closed) {
      // Hidden, or following another tab: until a `pageshow` or an election ends the sleep.
      if (phase !== Phase.Trying) {
        await sleep();
        continue;
      }
      // A follower needs no token: it asks for one when it becomes the leader, then checks again.
      if (!token) {
        if (!(await refreshToken())) return;
        continue;
      }
      openedAt = 0;
      const step = await (transport === 'sse' ? streamOnce() : pollNow());
      current = null;
      if (phase !== Phase.Trying) continue;
      if (openedAt && environment.now() - openedAt >= healthyAfterMs) attempt = 0;
      const delayMs = await afterStep(step, attempt);
      wakeNow = false;
      if (delayMs === undefined) return;
      attempt = step.kind === StepKind.Retry ? attempt + 1 : 0;
      to(Input.Wait); // a hold stays one
      await sleep(delayMs);
      to(Input.Elapse);
    }
  };

  // The page's life: a tab that becomes visible or a network that comes back checks the stream and
  // ends a backoff wait; a hidden tab sends its receipts now (it may be killed without notice); a
  // page that leaves or enters the back/forward cache stops the stream until it comes back.
  const wake = () => {
    if (phase === Phase.Trying && current?.isStale?.()) {
      wakeNow = true;
      current.stall!();
    } else to(Input.Wake);
  };
  const { host } = environment;
  const document = host?.document;
  const listeners: [
    Pick<TidingsHost, 'addEventListener' | 'removeEventListener'> | null | undefined,
    string,
    (event: Event) => void,
  ][] = [
    [document, 'visibilitychange', () => (document?.visibilityState === 'visible' ? wake() : receipts.flush())],
    [host, 'online', wake],
    [
      host,
      'pagehide',
      () => {
        to(Input.Hide);
        receipts.flush();
      },
    ],
    [host, 'pageshow', (event) => (event as PageTransitionEvent).persisted && to(Input.Show)],
  ];
  for (const [target, type, listener] of listeners) target?.addEventListener(type, listener);
  const stopWatching = () => {
    for (const [target, type, listener] of listeners) target?.removeEventListener(type, listener);
  };

  /** A follower takes the leader's browser and status, and the notifications it relays. */
  const follow = (message: LeaderMessage) => {
    const shared = message as {
      browser?: BrowserCredentials | null;
      lastEventId?: string;
      status?: TidingsStatus;
      detail?: TidingsStatusDetail;
      notification?: unknown;
      vapidKey?: string | null;
    };
    const next = shared.browser ?? browser;
    const changed = next?.browserId !== browser?.browserId || shared.lastEventId !== lastEventId;
    browser = next;
    lastEventId = shared.lastEventId ?? lastEventId;
    if (withPush && 'vapidKey' in shared) push?.answer({ vapid_public_key: shared.vapidKey });
    if (shared.notification) handleNotification(shared.notification, false);
    // Saved (with the ids seen) only on news: the leader's heartbeat repeats itself four times a second.
    if (changed || shared.notification) save();
    if (withPush && changed) push?.sync();
    const leaderStatus = shared.status;
    if (
      (leaderStatus === 'open' || leaderStatus === 'reconnecting') &&
      (leaderStatus !== status || lastDetail?.leader)
    ) {
      setStatus(leaderStatus, { ...shared.detail, leader: false });
    } else if (leaderStatus === 'closed' && /^disconnect/.test(`${shared.detail?.reason}`)) stop('disconnected');
  };

  const locks = host?.navigator?.locks;
  if (config.recipient && locks && host.BroadcastChannel) {
    // Versioned, so that a tab still running an older SDK does not read these messages.
    const name = `tidings:1:${config.baseUrl}:${config.recipient}`;
    to(Input.Follow); // a connection that shares the tabs' starts as a follower
    election = createTabElection({
      name,
      locks,
      channel: new host.BroadcastChannel(name),
      environment,
      state: () => ({
        browser,
        lastEventId,
        status,
        detail: { ...lastDetail, error: undefined },
        ...(withPush && { vapidKey: push?.vapidKey() }),
      }),
      // A follower's try ends: another tab holds the connection now.
      onRole: (role: TabRole) => role !== TabRole.Closed && to(role === TabRole.Leader ? Input.Lead : Input.Follow),
      onMessage: follow,
    });
  }

  // Started after connect() returns, so that no callback runs before the page holds the handle.
  Promise.resolve()
    .then(() => {
      setStatus('connecting');
      return run();
    })
    .catch((cause) => stop('error', new TidingsError('INTERNAL_ERROR', 'Unexpected failure', { cause })));

  const connection = {
    browserId: () => browser?.browserId ?? null,
    close: () => stop('close'),
    disconnect: () => {
      const gone = browser;
      stop('disconnect');
      forgetBrowser();
      if (!gone) return;
      if (withPush) push?.forget(gone.browserId);
      // `POST /v1/browsers/{id}/disconnect` with `navigator.sendBeacon`, which the browser delivers
      // even while the page unloads; without it (or when its queue is full), a keepalive fetch.
      const url = `${config.baseUrl}/v1/browsers/${encodeURIComponent(gone.browserId)}/disconnect`;
      const body = JSON.stringify({ browser_secret: gone.browserSecret });
      let queued = false;
      try {
        queued = host?.navigator?.sendBeacon?.(url, body) === true;
      } catch {
        // Some browsers throw instead of returning false (a blocked URL, a page already gone).
      }
      if (!queued) void postText(config.fetch, url, body, { keepalive: true });
    },
  } as TidingsConnection;
  // delivered(), displayed(), clicked(), dismissed(): one receipt each.
  for (const type of ['delivered', 'displayed', 'clicked', 'dismissed'] as const) {
    connection[type] = (attemptId) => receipt(type, attemptId);
  }
  if (withPush && push) {
    connection.enablePush = push.enable;
    connection.disablePush = push.disable;
  }
  return connection;
}
