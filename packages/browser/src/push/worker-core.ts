// What the service worker (`tidings-sw.js`) does with a Web Push message, a click and a close,
// written against a small environment so that it is tested without a browser; service-worker.ts
// wires it to the worker's global scope.
import { safeUrl } from '../system-notification.js';
import type { TidingsNotification, TidingsReceiptType } from '../types.js';

/** A push message's payload, as the server encrypts it for one browser's subscription. */
export interface PushEnvelope {
  tidings: 1;
  /** The browser the message is for: its credentials are looked up by this id. */
  browser_id: string;
  notification: TidingsNotification;
}

/** What the page stored for the worker when it enabled push: how to report receipts. */
export interface PushBrowserRecord {
  browserId: string;
  browserSecret: string;
  /** The Tidings server's base URL, e.g. `https://api.example.com` (no trailing slash). */
  baseUrl: string;
}

/** What a shown notification carries, to find its attempt on a click or a close. */
export interface ShownData {
  tidings: 1;
  browser_id: string;
  attempt_id: string;
  url: string | null;
  /** The customer's own data, as in the event stream. */
  data: Record<string, unknown> | null;
}

/** A window the worker can focus. */
export interface WorkerWindow {
  url: string;
  focus(): Promise<unknown>;
}

/** The parts of the service worker's world that the handlers use. */
export interface WorkerEnvironment {
  /** The stored record of a browser, or null when this browser did not enable push here (or disabled it). */
  lookup(browserId: string): Promise<PushBrowserRecord | null>;
  /**
   * True when an open tab already handed this attempt to its page (it notes them in IndexedDB,
   * push-db.ts): the stream won the race, and the message is not shown a second time.
   */
  handledByTab(attemptId: string): Promise<boolean>;
  /** The data of the notifications showing with this tag (`registration.getNotifications`). */
  showing(tag: string): Promise<unknown[]>;
  show(title: string, options: { body?: string; icon?: string; tag: string; data: ShownData }): Promise<void>;
  /** Open windows of the worker's origin (`clients.matchAll({ type: 'window' })`). */
  windows(): Promise<WorkerWindow[]>;
  openWindow(url: string): Promise<unknown>;
  fetch(
    url: string,
    init: { method: 'POST'; headers: Record<string, string>; body: string },
  ): Promise<{ ok: boolean; status: number }>;
  /** The worker's scope URL, which a relative notification `url` is resolved against. */
  scope: string;
  now(): number;
  /** Waits this long before the second try of a receipt. */
  sleep(ms: number): Promise<void>;
}

/** The payload as an envelope, or null when it is not one of Tidings' (another sender's, or malformed). */
export function parseEnvelope(text: string | null): PushEnvelope | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Partial<PushEnvelope> | null;
    const notification = value?.notification as Partial<TidingsNotification> | undefined;
    if (value?.tidings !== 1 || typeof value.browser_id !== 'string') return null;
    if (typeof notification?.attempt_id !== 'string' || typeof notification.title !== 'string') return null;
    return value as PushEnvelope;
  } catch {
    return null;
  }
}

/**
 * The tag a notification shows under: the customer's `tag` (a newer one of a conversation replaces
 * the older), or one per notification. The page's SDK shows under the same tag, so a message that
 * came both ways is one notification on screen.
 */
export function notificationTag(notification: Pick<TidingsNotification, 'tag' | 'notification_id'>): string {
  return notification.tag ? `tidings:tag:${notification.tag}` : `tidings:${notification.notification_id}`;
}

function isShownData(value: unknown): value is ShownData {
  const data = value as Partial<ShownData> | null;
  return data?.tidings === 1 && typeof data.attempt_id === 'string' && typeof data.browser_id === 'string';
}

/** Posts receipts for one browser; one more try after a network failure, a 429 or a 5xx. */
async function report(
  environment: WorkerEnvironment,
  browserId: string,
  attemptId: string,
  types: TidingsReceiptType[],
) {
  const record = await environment.lookup(browserId);
  if (!record) return;
  const at = new Date(environment.now()).toISOString();
  const body = JSON.stringify({
    browser_id: record.browserId,
    browser_secret: record.browserSecret,
    events: types.map((type) => ({ type, attempt_id: attemptId, at })),
  });
  const request = { method: 'POST' as const, headers: { 'Content-Type': 'application/json' }, body };
  for (let tries = 0; tries < 2; tries++) {
    try {
      const answer = await environment.fetch(`${record.baseUrl}/v1/events`, request);
      if (answer.ok || (answer.status < 500 && answer.status !== 429)) return;
    } catch {
      // The network: try once more.
    }
    if (tries === 0) await environment.sleep(1000);
  }
}

/**
 * A push message: show the notification, then report `delivered` and `displayed`. An attempt that
 * an open tab already handed to its page, or that is already showing (a push retried), is not
 * shown again and only reported `delivered` (idempotent, in case the tab's receipt was lost). A
 * message that is not Tidings' is left alone.
 */
export async function handlePush(environment: WorkerEnvironment, text: string | null): Promise<void> {
  const envelope = parseEnvelope(text);
  if (!envelope) return;
  const { notification } = envelope;
  const tag = notificationTag(notification);
  // A database that cannot be read must not cost the user the notification: it counts as not handled.
  const handled = await environment.handledByTab(notification.attempt_id).catch(() => false);
  const already =
    handled ||
    (await environment.showing(tag)).some((data) => isShownData(data) && data.attempt_id === notification.attempt_id);
  if (already) return report(environment, envelope.browser_id, notification.attempt_id, ['delivered']);
  await environment.show(notification.title, {
    ...(notification.body ? { body: notification.body } : {}),
    ...(notification.icon ? { icon: notification.icon } : {}),
    tag,
    data: {
      tidings: 1,
      browser_id: envelope.browser_id,
      attempt_id: notification.attempt_id,
      url: notification.url,
      data: notification.data,
    },
  });
  await report(environment, envelope.browser_id, notification.attempt_id, ['delivered', 'displayed']);
}

/**
 * A click: report `clicked`, then focus an open window of the URL's origin (or of the worker's,
 * without a URL), or open the URL; only http(s) URLs are opened.
 */
export async function handleClick(environment: WorkerEnvironment, data: unknown): Promise<void> {
  if (!isShownData(data)) return;
  const url = safeUrl(data.url, environment.scope);
  const origin = new URL(url ?? environment.scope).origin;
  const open = (await environment.windows()).find((window) => {
    try {
      return new URL(window.url).origin === origin;
    } catch {
      return false;
    }
  });
  const reported = report(environment, data.browser_id, data.attempt_id, ['clicked']);
  if (open) await open.focus();
  else if (url) await environment.openWindow(url);
  await reported;
}

/** A close by the user: report `dismissed`. */
export async function handleClose(environment: WorkerEnvironment, data: unknown): Promise<void> {
  if (!isShownData(data)) return;
  await report(environment, data.browser_id, data.attempt_id, ['dismissed']);
}
