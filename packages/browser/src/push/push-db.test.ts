import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import {
  deletePushBrowser,
  readPushBrowser,
  recordShownAttempt,
  wasAttemptShown,
  writePushBrowser,
} from './push-db.js';

const day = 24 * 3600 * 1000;

describe('the push database', () => {
  it('keeps, replaces and forgets the record of a browser', async () => {
    expect(await readPushBrowser(indexedDB, 'brw_db')).toBeNull();
    await writePushBrowser(indexedDB, { browserId: 'brw_db', browserSecret: 'bs_1', baseUrl: 'https://a.test' });
    await writePushBrowser(indexedDB, { browserId: 'brw_db', browserSecret: 'bs_2', baseUrl: 'https://a.test' });
    expect(await readPushBrowser(indexedDB, 'brw_db')).toEqual({
      browserId: 'brw_db',
      browserSecret: 'bs_2',
      baseUrl: 'https://a.test',
    });
    await deletePushBrowser(indexedDB, 'brw_db');
    expect(await readPushBrowser(indexedDB, 'brw_db')).toBeNull();
  });

  it('notes the attempts a tab handed to its page and forgets those older than a week', async () => {
    const start = Date.parse('2026-11-01T00:00:00Z');
    await recordShownAttempt(indexedDB, 'att_old', start);
    expect(await wasAttemptShown(indexedDB, 'att_old')).toBe(true);
    expect(await wasAttemptShown(indexedDB, 'att_never')).toBe(false);
    await recordShownAttempt(indexedDB, 'att_new', start + 6 * day);
    expect(await wasAttemptShown(indexedDB, 'att_old')).toBe(true);
    await recordShownAttempt(indexedDB, 'att_newer', start + 7 * day + 1);
    expect(await wasAttemptShown(indexedDB, 'att_old')).toBe(false);
    expect(await wasAttemptShown(indexedDB, 'att_new')).toBe(true);
  });

  it('opens a database of version 1 (browsers only) and adds the attempts store', async () => {
    const factory = new IDBFactory();
    await new Promise<void>((resolve, reject) => {
      const request = factory.open('tidings-push', 1);
      request.onupgradeneeded = () => request.result.createObjectStore('browsers', { keyPath: 'browserId' });
      request.onsuccess = () => {
        const transaction = request.result.transaction('browsers', 'readwrite');
        transaction
          .objectStore('browsers')
          .put({ browserId: 'brw_v1', browserSecret: 'bs', baseUrl: 'https://a.test' });
        transaction.oncomplete = () => {
          request.result.close();
          resolve();
        };
      };
      request.onerror = () => reject(request.error);
    });
    expect((await readPushBrowser(factory, 'brw_v1'))?.browserSecret).toBe('bs');
    await recordShownAttempt(factory, 'att_1', Date.now());
    expect(await wasAttemptShown(factory, 'att_1')).toBe(true);
  });
});
