import { withInbox, withPush } from './build-flags.js';
import { Input, Phase, transition } from './connection-machine.js';
import { TidingsError } from './errors.js';
import { credentialsBody, isRetryableStatus, postText, problemError } from './http.js';
import type { InboxControl } from './inbox.js';
import type { ResolvedOptions, TidingsEnvironment } from './options.js';
import { createPushControl, type PushControl } from './push/push-control.js';
import { type BrowserCredentials, createReceiptBatcher, type ReceiptBatcher } from './receipts.js';
import { createRecentIds, type RecentIds } from './recent-ids.js';
import { loadState, saveState, storageKey } from './stored-state.js';
import type { TabElection } from './tab-election.js';
import type {
  TidingsCloseReason,
  TidingsReceiptType,
  TidingsStatus,
  TidingsStatusDetail,
  TidingsTransport,
} from './types.js';

/** The stream's heartbeat until its `ready` event tells. */
export const defaultHeartbeatMs = 15_000;
const rememberedIds = 1000;
const persistedIds = 50;

/** The try under way (or the last one, over), a stream or a poll: its request's controller. */
export interface TryUnderWay {
  abort(): void;
}

/**
 * Everything a connection holds, in one record that the loop and its effects share: its options
 * and environment (spread in, so that the effects read `s.fetch`, `s.now()`), and its state. The fields
 * change only through the functions of this module and of the effects (stream.ts, poll.ts,
 * connection-tabs.ts); `phase` changes only through {@link to}, so through the transition table.
 * The names are internal: the script-tag builds shorten them (tsup.config.ts), so none of them may
 * be a name of the public API, of the DOM, or of what is stored or posted to other tabs.
 */
export interface ConnectionState extends ResolvedOptions, TidingsEnvironment {
  readonly stateKey: string;
  /** The attempt ids handed to the app lately, so that a redelivery is not handed again. */
  readonly recent: RecentIds;
  readonly receipts: ReceiptBatcher;
  /**
   * Web Push (push/push-control.ts); absent in the script-tag build without it. Every use is behind
   * `if (withPush)`, a constant the minifier folds, so that build keeps none of them.
   */
  pushControl?: PushControl;
  /** The inbox (inbox.ts); absent in the script-tag builds without it, and behind `if (withInbox)` likewise. */
  inboxControl?: InboxControl;
  /** The recipient the stream's `ready` named: the recipient of the inbox items made of notifications. */
  inboxRecipient?: string;
  /** Shared with the other tabs when there is a recipient and the browser can (connection-tabs.ts). */
  election?: TabElection;
  /** Removes the page's listeners (connect.ts). */
  unwatch?: () => void;
  ownBrowser: BrowserCredentials | null;
  /** The id of the last event received: where a new stream resumes. */
  resumeId: string;
  /** The loop polls: asked for (`transport: 'poll'`), or fallen back to from streaming. */
  polling: boolean;
  heartbeatMs: number;
  /** The backoff's base, which the server's `retry:` field sets (backoff.ts has the default). */
  retryBaseMs?: number;
  /** What the app was last told (undefined until the loop starts). */
  currentStatus?: TidingsStatus;
  lastDetail?: TidingsStatusDetail;
  /** Where the loop is (see connection-machine.ts). */
  phase: Phase;
  /** A wake that cut a stale stream short: the next try comes at once. */
  wakeNow?: boolean;
  /** When the try under way opened; undefined before. */
  openedAt?: number;
  /** New tokens a 401 led to since the last opening (one at most). */
  tokenRefreshes?: number;
  /** Streams that stalled before their first event, since the last opening. */
  stalls: number;
  underWay?: TryUnderWay;
  /** When the stream under way last received data; undefined before the first stream of a try. */
  activeAt?: number;
  /** Ends the loop's sleep (the latest one, which may be over). */
  endSleep?: (() => void) | null;
}

/** The record of a new connection: what it resumes from storage, and its receipts and push. */
export function createConnectionState(config: ResolvedOptions): ConnectionState {
  const { environment: env } = config;
  const key = storageKey(config.baseUrl);
  const stored = loadState(config.storage, key);
  const s: ConnectionState = {
    ...config,
    ...env,
    stateKey: key,
    recent: createRecentIds(rememberedIds, stored?.seen),
    receipts: createReceiptBatcher({
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
      environment: env,
      onError: (error) => report(s, error),
    }),
    ownBrowser: stored?.browser ?? null,
    resumeId: stored?.lastEventId ?? '',
    polling: config.transport === 'poll',
    heartbeatMs: defaultHeartbeatMs,
    phase: Phase.Trying,
    stalls: 0,
  };
  if (withPush) {
    s.pushControl = createPushControl({
      baseUrl: config.baseUrl,
      fetch: config.fetch,
      host: s.host,
      storage: config.storage,
      storageKey: key,
      browser: () => s.ownBrowser,
      now: s.now,
      report: (error) => report(s, error),
    });
  }
  return s;
}

/** The URL of `/v1/connect/{token}`, which both transports use (the loop tries only with a token). */
export const connectUrl = (s: ConnectionState) => `${s.baseUrl}/v1/connect/${encodeURIComponent(s.token!)}`;

/** The silence after which a stream counts as dead: 2.5 heartbeats. */
export const watchdogMs = (s: ConnectionState) => s.heartbeatMs * 2.5;

/**
 * Every change of phase: where `input` takes the connection, by the transition table. What a
 * phase does ends with it: the try under way is aborted and the loop's sleep ends, so that the
 * loop goes on with what the new phase does.
 */
export const to = (s: ConnectionState, input: Input) => {
  const next = transition(s.phase, input);
  if (next === s.phase) return;
  s.phase = next;
  s.underWay?.abort();
  s.endSleep?.();
};

/** Calls one of the app's callbacks, whose errors must not break the loop: they surface as uncaught ones. */
export const safely = <A extends unknown[]>(
  s: ConnectionState,
  callback: ((...args: A) => void) | undefined,
  ...args: A
) => {
  try {
    callback?.(...args);
  } catch (error) {
    s.setTimeout(() => {
      throw error;
    }, 0);
  }
};

export const report = (s: ConnectionState, error: TidingsError) => safely(s, s.onError, error);

/** Tells the app, and the other tabs when this one leads. */
export const setStatus = (s: ConnectionState, next: TidingsStatus, detail?: TidingsStatusDetail) => {
  s.currentStatus = next;
  s.lastDetail = detail;
  safely(s, s.onStatus, next, detail);
  if (withInbox) s.inboxControl?.statusChanged(next);
  s.election?.post();
};

/** Keeps what a reload resumes from. */
export const save = (s: ConnectionState) =>
  saveState(s.storage, s.stateKey, {
    browser: s.ownBrowser,
    lastEventId: s.resumeId,
    seen: s.recent.newest(persistedIds),
  });

export const forgetBrowser = (s: ConnectionState) => {
  s.ownBrowser = null;
  s.resumeId = '';
  save(s);
};

/** Queues a receipt of the current browser; none without one. */
export const receipt = (s: ConnectionState, type: TidingsReceiptType, attemptId: string) => {
  if (typeof attemptId !== 'string' || !attemptId) throw new TypeError(`Tidings ${type}(): give an attempt id`);
  if (s.ownBrowser) {
    s.receipts.add(s.ownBrowser, { type, attempt_id: attemptId, at: new Date(s.now()).toISOString() });
  }
};

/** A stream or a poll got through: the backoff and the token's retry start over. */
export const opened = (s: ConnectionState, resumed: boolean, via: TidingsTransport) => {
  s.openedAt = s.now();
  s.tokenRefreshes = s.stalls = 0;
  save(s);
  if (withPush) s.pushControl?.sync();
  const browser = s.ownBrowser;
  // A follower that takes over was open through the former leader: it reports its own opening.
  if ((s.currentStatus !== 'open' || s.lastDetail?.leader === false) && browser) {
    setStatus(s, 'open', {
      browserId: browser.browserId,
      resumed,
      transport: via,
      leader: s.election ? true : undefined,
    });
  }
};

/** Waits `milliseconds` (more than 0; forever without), or until `endSleep`. */
export const sleep = (s: ConnectionState, milliseconds?: number) =>
  new Promise<void>((resolve) => {
    // Ending a sleep twice, or one that is over, does nothing: `endSleep` may stay behind it.
    const end = () => {
      s.clearTimeout(timer);
      resolve();
    };
    s.endSleep = end;
    const timer = milliseconds && s.setTimeout(end, milliseconds);
  });

/** Closes the connection for good; `disconnected` also forgets the browser. */
export const stop = (s: ConnectionState, reason: TidingsCloseReason, error?: TidingsError): undefined => {
  if (s.phase === Phase.Closed) return;
  to(s, Input.Close);
  s.unwatch!();
  s.receipts.flush();
  if (reason === 'disconnected') {
    if (withPush && s.ownBrowser) s.pushControl?.forget(s.ownBrowser.browserId);
    forgetBrowser(s);
  }
  if (error) {
    error.fatal = true;
    report(s, error);
  }
  setStatus(s, 'closed', { reason, error });
  s.election?.close(); // after the status, which tells the other tabs why
};
