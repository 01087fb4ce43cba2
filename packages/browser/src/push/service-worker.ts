// tidings-sw.js: the service worker a host serves (or pulls into its own with `importScripts`) so
// that a notification reaches this browser through its push service while no tab of the site is
// open. It shows the notification, reports its receipts, and opens or focuses the site on a click.
import { readPushBrowser, wasAttemptShown } from './push-db.js';
import { handleClick, handleClose, handlePush, type WorkerEnvironment } from './worker-core.js';

/** The parts of `ServiceWorkerGlobalScope` used here (the DOM library has no worker types). */
interface WorkerScope {
  indexedDB: IDBFactory;
  registration: {
    scope: string;
    showNotification(title: string, options: NotificationOptions): Promise<void>;
    getNotifications(filter: { tag: string }): Promise<{ data: unknown }[]>;
  };
  clients: {
    matchAll(options: {
      type: 'window';
      includeUncontrolled: boolean;
    }): Promise<{ url: string; focus(): Promise<unknown> }[]>;
    openWindow(url: string): Promise<unknown>;
  };
  addEventListener(type: string, listener: (event: WorkerEvent) => void): void;
  fetch: typeof fetch;
}

interface WorkerEvent {
  waitUntil(promise: Promise<unknown>): void;
  data?: { text(): string } | null;
  notification?: { data: unknown; close(): void };
}

const scope = globalThis as unknown as WorkerScope;

const environment: WorkerEnvironment = {
  lookup: (browserId) => readPushBrowser(scope.indexedDB, browserId),
  handledByTab: (attemptId) => wasAttemptShown(scope.indexedDB, attemptId),
  showing: async (tag) => (await scope.registration.getNotifications({ tag })).map((shown) => shown.data),
  show: (title, options) => scope.registration.showNotification(title, options),
  windows: () => scope.clients.matchAll({ type: 'window', includeUncontrolled: true }),
  openWindow: (url) => scope.clients.openWindow(url),
  fetch: (url, init) => scope.fetch(url, { ...init, keepalive: true }),
  scope: scope.registration.scope,
  now: Date.now,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

scope.addEventListener('push', (event) => {
  event.waitUntil(handlePush(environment, event.data ? event.data.text() : null));
});

scope.addEventListener('notificationclick', (event) => {
  event.notification?.close();
  event.waitUntil(handleClick(environment, event.notification?.data));
});

scope.addEventListener('notificationclose', (event) => {
  event.waitUntil(handleClose(environment, event.notification?.data));
});
