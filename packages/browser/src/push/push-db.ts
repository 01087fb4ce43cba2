// The one place where the page and the service worker share what the worker needs: an IndexedDB
// database of the origin (service workers cannot read localStorage). `browsers` holds how to report
// receipts for a browser that enabled push; `attempts` holds the attempts an open tab already
// handed to its page, so that the worker drops a push message of the same attempt.
import type { PushBrowserRecord } from './worker-core.js';

const DATABASE = 'tidings-push';
const BROWSERS = 'browsers';
const ATTEMPTS = 'attempts';
/** An attempt is kept as long as the longest notification ttl (7 days): no push of it comes later. */
const attemptKeptMs = 7 * 24 * 3600 * 1000;

/** What the `attempts` store holds: an attempt a tab handed to its page, and when. */
interface ShownAttempt {
  attemptId: string;
  at: number;
}

function open(indexedDB: IDBFactory): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    // Version 2 added `attempts`; a database of version 1 keeps its `browsers`.
    const request = indexedDB.open(DATABASE, 2);
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(BROWSERS)) db.createObjectStore(BROWSERS, { keyPath: 'browserId' });
      if (!db.objectStoreNames.contains(ATTEMPTS)) {
        db.createObjectStore(ATTEMPTS, { keyPath: 'attemptId' }).createIndex('at', 'at');
      }
    };
    request.onsuccess = () => {
      // A newer version opened elsewhere (the worker or a page of a later release) must not wait
      // for this connection, short-lived as it is.
      request.result.onversionchange = () => request.result.close();
      resolve(request.result);
    };
    request.onerror = () => reject(request.error);
  });
}

/**
 * Runs `action` in one transaction of `store` and resolves with what `action` reads once the
 * transaction has committed (a write is then durable), rejecting if it aborts.
 */
function run<T>(
  indexedDB: IDBFactory,
  store: string,
  mode: IDBTransactionMode,
  action: (store: IDBObjectStore) => IDBRequest<T> | undefined,
): Promise<T | undefined> {
  return open(indexedDB).then((db) =>
    new Promise<T | undefined>((resolve, reject) => {
      const transaction = db.transaction(store, mode);
      const request = action(transaction.objectStore(store));
      transaction.oncomplete = () => resolve(request?.result);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    }).finally(() => db.close()),
  );
}

/** The record of a browser, or null. */
export function readPushBrowser(indexedDB: IDBFactory, browserId: string): Promise<PushBrowserRecord | null> {
  return run(indexedDB, BROWSERS, 'readonly', (store) => store.get(browserId) as IDBRequest<PushBrowserRecord>).then(
    (record) => record ?? null,
  );
}

/** Keeps the record of a browser that enabled push. */
export function writePushBrowser(indexedDB: IDBFactory, record: PushBrowserRecord): Promise<void> {
  return run(indexedDB, BROWSERS, 'readwrite', (store) => {
    store.put(record);
    return undefined;
  }).then(() => undefined);
}

/** Forgets a browser (push disabled, or the browser disconnected). */
export function deletePushBrowser(indexedDB: IDBFactory, browserId: string): Promise<void> {
  return run(indexedDB, BROWSERS, 'readwrite', (store) => {
    store.delete(browserId);
    return undefined;
  }).then(() => undefined);
}

/** Notes that a tab handed this attempt to its page, and forgets the notes older than a week. */
export function recordShownAttempt(indexedDB: IDBFactory, attemptId: string, now: number): Promise<void> {
  return run(indexedDB, ATTEMPTS, 'readwrite', (store) => {
    store.put({ attemptId, at: now } satisfies ShownAttempt);
    const cursor = store.index('at').openKeyCursor(IDBKeyRange.upperBound(now - attemptKeptMs));
    cursor.onsuccess = () => {
      if (!cursor.result) return;
      store.delete(cursor.result.primaryKey);
      cursor.result.continue();
    };
    return undefined;
  }).then(() => undefined);
}

/** True when a tab already handed this attempt to its page. */
export function wasAttemptShown(indexedDB: IDBFactory, attemptId: string): Promise<boolean> {
  return run(indexedDB, ATTEMPTS, 'readonly', (store) => store.count(attemptId)).then((count) => (count ?? 0) > 0);
}
