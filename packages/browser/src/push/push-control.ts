// Web Push for one connection: `enablePush()` and `disablePush()` of the handle, the VAPID key of
// the connect answers, and the re-subscription when the browser or the key changes. connect.ts
// creates it only in the builds that offer push (see build-flags.ts).
import { protocolError, TidingsError } from '../errors.js';
import { problemError, readJson, tryFetch } from '../http.js';
import type { TidingsHost } from '../options.js';
import type { BrowserCredentials } from '../receipts.js';
import type { EnablePushOptions, TidingsPushSubscription } from '../types.js';
import { deletePushBrowser, recordShownAttempt, writePushBrowser } from './push-db.js';

const defaultServiceWorker = '/tidings-sw.js';

/** What the page chose when it enabled push, kept in the connection's storage beside its state. */
interface PushChoice {
  serviceWorker: string;
  scope: string | null;
  /** The browser and key the subscription was last sent for. */
  browserId: string;
  vapidKey: string;
}

/** What a {@link PushControl} needs from its connection. */
export interface PushContext {
  baseUrl: string;
  fetch: typeof fetch;
  host: TidingsHost | null;
  storage: Storage | null;
  /** The connection's storage key; the choice is kept under `<key>:push`. */
  storageKey: string;
  /** The browser in use, or null before the first connect answer. */
  browser(): BrowserCredentials | null;
  now(): number;
  /** Reports a failure of a re-subscription nobody awaits (`onError`). */
  report(error: TidingsError): void;
}

/** Web Push of one connection. */
export interface PushControl {
  /** Takes the VAPID key of a connect answer (`ready`, a poll's registration, the leader's relay). */
  answer(payload: unknown): void;
  /** The VAPID key: a string, null when the server has push off, undefined before any answer. */
  vapidKey(): string | null | undefined;
  /** Re-sends the subscription when the browser or the key changed since push was enabled. */
  sync(): void;
  /** Notes that the page was handed this attempt, so that the service worker does not show it again. */
  handed(attemptId: string): void;
  enable(options?: EnablePushOptions): Promise<TidingsPushSubscription>;
  disable(): Promise<void>;
  /** The browser was disconnected (the server dropped its subscription): forget it here too. */
  forget(browserId: string): void;
}

const pushError = (code: string, message: string, cause?: unknown) => new TidingsError(code, message, { cause });

/** base64url (padding optional) to bytes; `atob` decodes without padding. */
function decodeKey(key: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(key.replace(/-/g, '+').replace(/_/g, '/')), (char) => char.charCodeAt(0));
}

function sameBytes(buffer: ArrayBuffer | null | undefined, bytes: Uint8Array): boolean {
  if (!buffer || buffer.byteLength !== bytes.length) return false;
  const view = new Uint8Array(buffer);
  return view.every((byte, index) => byte === bytes[index]);
}

/**
 * Resolves once the registration has an active worker (`PushManager.subscribe` needs one).
 * Judged by the registration's slots rather than the worker's `state`: the script-tag build
 * shortens the SDK's own property names, `state` among them (tsup.config.ts).
 */
function activated(registration: ServiceWorkerRegistration): Promise<ServiceWorkerRegistration> {
  const worker = registration.installing ?? registration.waiting;
  if (registration.active || !worker) return Promise.resolve(registration);
  return new Promise((resolve, reject) => {
    const onChange = () => {
      if (registration.active) resolve(registration);
      // Neither active nor on its way: the worker became redundant (its install failed).
      else if (!registration.installing && !registration.waiting) {
        reject(new Error('The service worker failed to install'));
      } else return;
      worker.removeEventListener('statechange', onChange);
    };
    worker.addEventListener('statechange', onChange);
  });
}

/** Creates the Web Push part of a connection. */
export function createPushControl(context: PushContext): PushControl {
  const { host } = context;
  const choiceKey = `${context.storageKey}:push`;
  let vapidKey: string | null | undefined;
  /** Operations run one after another: a re-subscription never overlaps an enable or a disable. */
  let queue: Promise<unknown> = Promise.resolve();
  /** The browser and key a re-subscription is under way for, so that each poll does not start another. */
  let syncing = '';

  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const result = queue.then(task, task);
    queue = result.catch(() => undefined);
    return result;
  };

  const loadChoice = (): PushChoice | null => {
    try {
      const value = JSON.parse(context.storage?.getItem(choiceKey) ?? 'null') as Partial<PushChoice> | null;
      return typeof value?.serviceWorker === 'string' &&
        typeof value.browserId === 'string' &&
        typeof value.vapidKey === 'string'
        ? {
            serviceWorker: value.serviceWorker,
            scope: typeof value.scope === 'string' ? value.scope : null,
            browserId: value.browserId,
            vapidKey: value.vapidKey,
          }
        : null;
    } catch {
      return null;
    }
  };
  const saveChoice = (choice: PushChoice | null) => {
    try {
      if (choice) context.storage?.setItem(choiceKey, JSON.stringify(choice));
      else context.storage?.removeItem(choiceKey);
    } catch {
      // Quota or privacy mode: push stays on; only the re-subscription after a new browser is lost.
    }
  };

  /** The browser APIs push needs, or null where this browser lacks them. */
  const platform = () => {
    const container = host?.navigator?.serviceWorker;
    const NotificationApi = host?.Notification;
    return container && host.PushManager && NotificationApi && host.indexedDB
      ? { container, NotificationApi, indexedDB: host.indexedDB }
      : null;
  };

  const browserApi = async <T>(what: string, step: () => Promise<T>): Promise<T> => {
    try {
      return await step();
    } catch (cause) {
      const denied = (cause as { name?: unknown } | null)?.name === 'NotAllowedError';
      throw denied
        ? pushError('PUSH_DENIED', 'The browser refused the push subscription', cause)
        : pushError('PUSH_FAILED', `${what} failed`, cause);
    }
  };

  /**
   * Registers the worker, subscribes with the current key (a subscription made with another key,
   * before a rotation, is replaced), stores what the worker needs, then sends the subscription.
   */
  const subscribeAndSend = async (
    options: Pick<PushChoice, 'serviceWorker' | 'scope'>,
  ): Promise<TidingsPushSubscription> => {
    const apis = platform();
    const browser = context.browser();
    const key = vapidKey;
    if (!apis) throw pushError('PUSH_UNSUPPORTED', 'This browser has no Web Push');
    if (key === null) throw pushError('PUSH_NOT_CONFIGURED', 'The Tidings server has Web Push off');
    if (!browser || key === undefined) throw pushError('NOT_CONNECTED', 'Not connected yet');
    const keyBytes = decodeKey(key);
    const registration = await browserApi('Registering the service worker', () =>
      apis.container.register(options.serviceWorker, options.scope ? { scope: options.scope } : undefined),
    ).then(activated);
    const subscription = await browserApi('Subscribing', async () => {
      const existing = await registration.pushManager.getSubscription();
      if (existing && sameBytes(existing.options.applicationServerKey, keyBytes)) return existing;
      await existing?.unsubscribe();
      return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes });
    });
    const { browserId, browserSecret } = browser;
    await browserApi('Storing the browser for the service worker', () =>
      writePushBrowser(apis.indexedDB, { browserId, browserSecret, baseUrl: context.baseUrl }),
    );
    const { endpoint, expirationTime, keys } = subscription.toJSON();
    const response = await tryFetch(context.fetch, pushUrl(browserId), {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        browser_secret: browserSecret,
        endpoint,
        keys: { p256dh: keys?.p256dh, auth: keys?.auth },
        expiration_time: expirationTime ?? null,
      }),
    });
    if (response instanceof TidingsError) throw response;
    if (!response.ok) throw await problemError(response);
    const saved = (await readJson(response)) as TidingsPushSubscription | null;
    if (saved?.object !== 'push_subscription') throw protocolError('Bad push subscription answer');
    const before = loadChoice();
    saveChoice({ ...options, browserId, vapidKey: key });
    if (before && before.browserId !== browserId)
      await deletePushBrowser(apis.indexedDB, before.browserId).catch(() => {});
    return saved;
  };

  const pushUrl = (browserId: string) =>
    `${context.baseUrl}/v1/browsers/${encodeURIComponent(browserId)}/push-subscription`;

  return {
    answer(payload) {
      const value = (payload as { vapid_public_key?: unknown } | null)?.vapid_public_key;
      if (typeof value === 'string' || value === null) vapidKey = value;
    },
    vapidKey: () => vapidKey,
    sync() {
      const choice = loadChoice();
      const browser = context.browser();
      const key = vapidKey;
      if (!choice || !browser || typeof key !== 'string') return;
      const wanted = `${browser.browserId} ${key}`;
      if ((choice.browserId === browser.browserId && choice.vapidKey === key) || syncing === wanted) return;
      // Without permission (revoked since) there is nothing to send and no gesture to ask in.
      if (platform()?.NotificationApi.permission !== 'granted') return saveChoice(null);
      syncing = wanted;
      serial(() => subscribeAndSend(choice))
        .catch((error: unknown) =>
          context.report(
            error instanceof TidingsError ? error : pushError('PUSH_FAILED', 'Re-subscribing failed', error),
          ),
        )
        .finally(() => {
          if (syncing === wanted) syncing = '';
        });
    },
    handed(attemptId) {
      const apis = platform();
      // Only where a push could be shown at all, so that a page without push creates no database.
      if (apis?.NotificationApi.permission !== 'granted') return;
      recordShownAttempt(apis.indexedDB, attemptId, context.now()).catch(() => {
        // Blocked storage: the worker then falls back on the notifications showing.
      });
    },
    async enable(options = {}) {
      const { serviceWorker = defaultServiceWorker, scope = null } = options ?? {};
      if (typeof serviceWorker !== 'string' || (scope !== null && typeof scope !== 'string')) {
        throw new TypeError('Tidings enablePush(): invalid serviceWorker or scope');
      }
      const apis = platform();
      if (!apis) throw pushError('PUSH_UNSUPPORTED', 'This browser has no Web Push');
      if (vapidKey === null) throw pushError('PUSH_NOT_CONFIGURED', 'The Tidings server has Web Push off');
      if (vapidKey === undefined || !context.browser()) throw pushError('NOT_CONNECTED', 'Not connected yet');
      // Asked here and only here, while the user's gesture that called enablePush() still counts.
      const permission =
        apis.NotificationApi.permission === 'granted' ? 'granted' : await apis.NotificationApi.requestPermission();
      if (permission !== 'granted') throw pushError('PUSH_DENIED', 'Notifications are not allowed');
      return serial(() => subscribeAndSend({ serviceWorker, scope }));
    },
    disable: () =>
      serial(async () => {
        const choice = loadChoice();
        const browser = context.browser();
        const apis = platform();
        let failure: TidingsError | null = null;
        if (browser) {
          const response = await tryFetch(context.fetch, pushUrl(browser.browserId), {
            method: 'DELETE',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ browser_secret: browser.browserSecret }),
          });
          if (response instanceof TidingsError) failure = response;
          else if (!response.ok) failure = await problemError(response);
        }
        // Off in this browser whatever the server said: a push service that no longer knows the
        // subscription answers the server 404 or 410, and the server then drops it too.
        saveChoice(null);
        if (apis) {
          const registration = await apis.container
            .getRegistration(choice?.scope ?? choice?.serviceWorker ?? defaultServiceWorker)
            .catch(() => undefined);
          await (await registration?.pushManager.getSubscription())?.unsubscribe().catch(() => false);
          for (const browserId of new Set([browser?.browserId, choice?.browserId])) {
            if (browserId) await deletePushBrowser(apis.indexedDB, browserId).catch(() => {});
          }
        }
        if (failure) throw failure;
      }),
    forget(browserId) {
      saveChoice(null);
      const apis = platform();
      if (apis) void deletePushBrowser(apis.indexedDB, browserId).catch(() => {});
    },
  };
}
