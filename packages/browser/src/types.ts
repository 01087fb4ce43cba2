import type { TidingsError } from './errors.js';
import type { TidingsInbox } from './inbox-types.js';

/**
 * A notification as the server sends it (`event: notification`, or a poll). Field names are
 * the API's own, so that the server's documentation reads the same here.
 */
export interface TidingsNotification {
  /** The delivery attempt for this browser: the key of receipts and of de-duplication. */
  attempt_id: string;
  notification_id: string;
  title: string;
  body: string | null;
  /** An absolute http(s) URL or a path of the customer's site. */
  url: string | null;
  icon: string | null;
  tag: string | null;
  /** The customer's own JSON object. */
  data: Record<string, unknown> | null;
  created_at: string;
  expires_at: string;
  /**
   * The version of the recipient's inbox its item was made at; null when not known (a delivery
   * sent again after a reconnect, a poll). Lists use it to apply changes in order.
   */
  inbox_version?: number | null;
}

/** The life of a connection: `connecting` → `open` ⇄ `reconnecting` → `closed`. */
export type TidingsStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';

/**
 * Why a connection is `closed`:
 * - `close`: the page called `close()`; the browser can resume later.
 * - `disconnect`: the page called `disconnect()`; the browser is gone for good.
 * - `disconnected`: the server answered 204: this browser was disconnected elsewhere.
 * - `error`: a fatal error (see `detail.error`): 401 without a working `getToken`, 403, or another 4xx.
 */
export type TidingsCloseReason = 'close' | 'disconnect' | 'disconnected' | 'error';

/** The transport in use: a Server-Sent Events stream read with `fetch`, or polling. */
export type TidingsTransport = 'sse' | 'poll';

/** What comes with a status change; which fields are set depends on the status. */
export interface TidingsStatusDetail {
  /** `open`: the browser id now in use. */
  browserId?: string;
  /** `open`: true when a stored or previous browser was resumed, false when a new one started. */
  resumed?: boolean;
  /** `open`: the transport that opened. */
  transport?: TidingsTransport;
  /** `reconnecting`: the number of consecutive failures so far. */
  attempt?: number;
  /** `reconnecting`: the wait before the next try, in milliseconds. */
  delayMs?: number;
  /**
   * With a `recipient` (tabs share one connection): `open` in the tab that holds the connection
   * says true; `open` and `reconnecting` in the tabs it relays to say false.
   */
  leader?: boolean;
  /** `closed`: why. */
  reason?: TidingsCloseReason;
  /** `reconnecting` or `closed`: the failure that caused it, if any. */
  error?: TidingsError;
}

/** Receipt kinds that `POST /v1/events` accepts. */
export type TidingsReceiptType = 'delivered' | 'displayed' | 'clicked' | 'dismissed';

/** The handle that `connect()` returns. */
export interface TidingsConnection {
  /** The browser id in use, or null before the first `ready` (or after `disconnect()`). */
  browserId(): string | null;
  /** Reports that the app took the notification; needed only with `autoDelivered: false`. */
  delivered(attemptId: string): void;
  /** Reports that the notification was shown to the user. */
  displayed(attemptId: string): void;
  /** Reports that the user clicked the notification. */
  clicked(attemptId: string): void;
  /** Reports that the user dismissed the notification. */
  dismissed(attemptId: string): void;
  /**
   * Ends this browser for good: sends the disconnect request (with `navigator.sendBeacon` when
   * available, so it survives page unload), closes the connection and forgets the stored state.
   * The server then marks its unfinished attempts `failed`.
   */
  disconnect(): void;
  /** Closes the connection without disconnecting: a later `connect()` resumes the same browser. */
  close(): void;
  /**
   * Turns Web Push on for this browser, so that its notifications reach it through the service
   * worker while no tab is open. Call it from a user gesture (a click): it asks for the
   * notification permission, and only here. Rejects with a {@link TidingsError}: `PUSH_UNSUPPORTED`,
   * `PUSH_DENIED`, `PUSH_NOT_CONFIGURED` (the server has push off), `NOT_CONNECTED` (before the
   * connection first opened), `PUSH_FAILED` (the browser's push API failed), or the server's code.
   * Not in `tidings.global.js`: the script-tag build with push is `tidings-push.global.js`.
   */
  enablePush(options?: EnablePushOptions): Promise<TidingsPushSubscription>;
  /**
   * Turns Web Push off: removes the subscription from the server, unsubscribes in the browser and
   * forgets what the service worker kept. Rejects with the server's error after doing the rest.
   */
  disablePush(): Promise<void>;
  /**
   * The recipient's inbox through this browser: its items, counts and marks, and the events that
   * keep a bell's badge right in every tab (docs/inbox.md). Not in `tidings.global.js` nor
   * `tidings-push.global.js`: the script-tag build with the inbox is `tidings-inbox.global.js`.
   */
  inbox: TidingsInbox;
}

/** Options of `enablePush()`. */
export interface EnablePushOptions {
  /**
   * The URL of the service worker script as your site serves it (a copy of
   * `@tidings/browser/tidings-sw.js`, or your own worker that imports it).
   * @default '/tidings-sw.js'
   */
  serviceWorker?: string;
  /** The worker's scope. @default the directory of `serviceWorker` */
  scope?: string;
}

/**
 * The push subscription as the server keeps it (`PUT /v1/browsers/{id}/push-subscription`); the
 * keys and the full endpoint URL never come back.
 */
export interface TidingsPushSubscription {
  object: 'push_subscription';
  browser_id: string;
  /** The push service's host, e.g. `fcm.googleapis.com`. */
  endpoint_host: string;
  created_at: string;
  updated_at: string;
  /** When the push service said the subscription ends, or null. */
  expires_at: string | null;
}
