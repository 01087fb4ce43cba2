import { existsSync, statSync } from 'node:fs';
import { newId, type Store } from '@tidings/core';
import type { RequestLogEntry } from '@tidings/core/store';
import { requestLogConformance } from '@tidings/core/testing';
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { requestLogPath } from './request-log-file.js';
import { seedKey } from './test-support/seed.js';
import { useStoreFile } from './test-support/store-file.js';

const T0 = Date.UTC(2026, 0, 1, 12);
const KEY = `sk_live_${'A'.repeat(32)}`;

const file = useStoreFile();

/** An entry of `projectId` made at `at`, with a body of a send's size. */
function entry(projectId: string, at: number, overrides: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return {
    requestId: newId('req', at),
    projectId,
    method: 'POST',
    path: '/v1/notifications',
    status: 201,
    code: null,
    keyPrefix: KEY.slice(0, 12),
    mode: 'live',
    idempotencyKey: null,
    notificationIds: [newId('ntf', at)],
    recipient: 'user-1',
    createdAt: at,
    durationMs: 1.25,
    requestBody: { text: JSON.stringify({ recipient: 'user-1', title: 'x'.repeat(400) }), truncated: false },
    responseBody: { text: JSON.stringify({ object: 'notification', body: 'y'.repeat(600) }), truncated: false },
    ...overrides,
  };
}

async function entriesOf(store: Store, projectId: string): Promise<string[]> {
  const page = await store.listRequestLog({
    projectId,
    statusClass: null,
    mode: null,
    search: null,
    limit: 1000,
    startingAfter: null,
  });
  return page.entries.map((found) => found.requestId);
}

describe('the request log of a database file, in a file of its own written by a thread of its own', () => {
  // The port's whole contract, on a file: every write goes through the thread, every read
  // through the main thread's own connection to the log's file.
  let store: Store | undefined;
  // useStoreFile closes and removes each test's file; each test opens a store of its own.
  beforeEach(() => {
    store = undefined;
  });
  requestLogConformance(() => {
    store ??= file.open();
    return store;
  });

  it('keeps the entries beside the database, out of its file and out of its WAL', async () => {
    const opened = file.open();
    const { project } = await seedKey(opened, KEY, T0);
    const walBefore = statSync(`${file.path}-wal`).size;
    const entries = Array.from({ length: 200 }, (_, index) => entry(project.id, T0 + index));
    await opened.appendRequestLog(entries);
    expect(await entriesOf(opened, project.id)).toHaveLength(200);
    // Not one byte of 200 entries of over 1 KB each went through the sends' WAL.
    expect(statSync(`${file.path}-wal`).size).toBe(walBefore);
    const main = new Database(file.path, { readonly: true });
    try {
      expect(main.prepare("SELECT count(*) FROM sqlite_master WHERE name LIKE 'request_log%'").pluck().get()).toBe(0);
    } finally {
      main.close();
    }
    const log = new Database(requestLogPath(file.path), { readonly: true });
    try {
      expect(log.prepare('SELECT count(*) FROM request_log').pluck().get()).toBe(200);
    } finally {
      log.close();
    }
  });

  it('writes while another connection holds the database’s write lock: the sends’ lock is not the log’s', async () => {
    const opened = file.open({ busyTimeoutMs: 60_000 });
    const { project } = await seedKey(opened, KEY, T0);
    const writer = new Database(file.path);
    writer.exec('BEGIN IMMEDIATE');
    try {
      // Were the log in the database, this write would wait for the lock (a minute here).
      await opened.appendRequestLog([entry(project.id, T0)]);
      expect(await entriesOf(opened, project.id)).toHaveLength(1);
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
  });

  it('finishes the writes it was given before it closes, and they are there when the file is opened again', async () => {
    const first = file.open();
    const { project } = await seedKey(first, KEY, T0);
    const written = Promise.all(
      Array.from({ length: 20 }, (_, index) => first.appendRequestLog([entry(project.id, T0 + index)])),
    );
    await first.close();
    await written;
    // The thread's connection closed last: it copied its WAL into the file and removed it.
    expect(existsSync(`${requestLogPath(file.path)}-wal`)).toBe(false);
    expect(await entriesOf(file.open(), project.id)).toHaveLength(20);
  });

  it('deletes the entries of every project of a deleted account', async () => {
    const opened = file.open();
    const { project } = await seedKey(opened, KEY, T0);
    await opened.appendRequestLog([entry(project.id, T0), entry(project.id, T0 + 1)]);
    expect(await opened.deleteAccount({ id: project.accountId })).toEqual({ projectIds: [project.id] });
    expect(await entriesOf(opened, project.id)).toEqual([]);
  });
});
