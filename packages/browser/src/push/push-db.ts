// The one place where the page and the service worker share what the worker needs to report
// receipts: an IndexedDB database of the origin (service workers cannot read localStorage).
import type { PushBrowserRecord } from './worker-core.js';

const DATABASE = 'tidings-push';
const STORE = 'browsers';

function open(indexedDB: IDBFactory): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'browserId' });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function run<T>(
  indexedDB: IDBFactory,
  mode: IDBTransactionMode,
  action: (store: IDBObjectStore) => IDBRequest<T>,
): Promise<T> {
  return open(indexedDB).then((db) =>
    new Promise<T>((resolve, reject) => {
      const request = action(db.transaction(STORE, mode).objectStore(STORE));
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    }).finally(() => db.close()),
  );
}

/** The record of a browser, or null. */
export function readPushBrowser(indexedDB: IDBFactory, browserId: string): Promise<PushBrowserRecord | null> {
  return run(indexedDB, 'readonly', (store) => store.get(browserId) as IDBRequest<PushBrowserRecord | undefined>).then(
    (record) => record ?? null,
  );
}

/** Keeps the record of a browser that enabled push. */
export function writePushBrowser(indexedDB: IDBFactory, record: PushBrowserRecord): Promise<void> {
  return run(indexedDB, 'readwrite', (store) => store.put(record)).then(() => undefined);
}

/** Forgets a browser (push disabled, or the browser disconnected). */
export function deletePushBrowser(indexedDB: IDBFactory, browserId: string): Promise<void> {
  return run(indexedDB, 'readwrite', (store) => store.delete(browserId)).then(() => undefined);
}
