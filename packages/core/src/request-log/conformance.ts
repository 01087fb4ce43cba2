import { describe, expect, it } from 'vitest';
import type { Store } from '../ports/store.js';
import { newId } from '../shared/ids.js';
import { DAY_MS, type GetStore, seedProject, T0 } from '../testing/fixtures.js';
import type { RequestLogEntry } from './store.js';

/** An entry of a project made at `at`, with `overrides`. */
function entry(projectId: string, at: number, overrides: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return {
    requestId: newId('req', at),
    projectId,
    method: 'POST',
    path: '/v1/notifications',
    status: 201,
    code: null,
    keyPrefix: 'sk_test_abcd',
    mode: 'test',
    idempotencyKey: null,
    notificationIds: [],
    recipient: null,
    createdAt: at,
    durationMs: 1.5,
    requestBody: { text: '{"recipient":"user-1","title":"Hi"}', truncated: false },
    responseBody: { text: '{"object":"notification"}', truncated: false },
    ...overrides,
  };
}

async function list(
  store: Store,
  projectId: string,
  filters: Partial<Parameters<Store['listRequestLog']>[0]> = {},
): Promise<string[]> {
  const page = await store.listRequestLog({
    projectId,
    statusClass: null,
    mode: null,
    search: null,
    limit: 100,
    startingAfter: null,
    ...filters,
  });
  return page.entries.map((found) => found.requestId);
}

/** The request log (docs/api.md#request-log): batches, pages, filters, searches and retention. */
export function requestLogConformance(getStore: GetStore<Store>): void {
  describe('request log', () => {
    it('keeps every field of an entry, bodies and their cut included, for its own project only', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const other = await seedProject(store);
      const refused = entry(project.id, T0, {
        status: 409,
        code: 'NO_CONNECTED_BROWSER',
        mode: 'live',
        keyPrefix: 'sk_live_wxyz',
        idempotencyKey: 'order-1 "quoted"',
        recipient: 'user-1',
        notificationIds: [],
        durationMs: 12.25,
        requestBody: { text: `{"title":"${'é'.repeat(100)}"}`, truncated: true },
        responseBody: null,
      });
      const read = entry(project.id, T0 + 1, {
        method: 'GET',
        path: '/v1/notifications/ntf_x?expand=attempts',
        status: 200,
        notificationIds: [newId('ntf', T0)],
        requestBody: null,
      });
      await store.appendRequestLog([refused, read]);
      expect(await store.getRequestLogEntry({ projectId: project.id, requestId: refused.requestId })).toEqual(refused);
      expect(await store.getRequestLogEntry({ projectId: project.id, requestId: read.requestId })).toEqual(read);
      expect(await store.getRequestLogEntry({ projectId: other.id, requestId: read.requestId })).toBeNull();
      expect(await list(store, other.id)).toEqual([]);
    });

    it('ignores an entry whose request id is there already, and an empty batch', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const first = entry(project.id, T0, { status: 201 });
      await store.appendRequestLog([first]);
      await store.appendRequestLog([{ ...first, status: 500 }]);
      await store.appendRequestLog([]);
      expect(await store.getRequestLogEntry({ projectId: project.id, requestId: first.requestId })).toMatchObject({
        status: 201,
      });
      expect(await list(store, project.id)).toEqual([first.requestId]);
    });

    it('pages newest first with a cursor', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const entries = Array.from({ length: 5 }, (_, i) => entry(project.id, T0 + i));
      await store.appendRequestLog(entries);
      const ids = entries.map((made) => made.requestId).reverse();
      const first = await store.listRequestLog({
        projectId: project.id,
        statusClass: null,
        mode: null,
        search: null,
        limit: 2,
        startingAfter: null,
      });
      expect(first.entries.map((found) => found.requestId)).toEqual(ids.slice(0, 2));
      expect(first.hasMore).toBe(true);
      const last = await store.listRequestLog({
        projectId: project.id,
        statusClass: null,
        mode: null,
        search: null,
        limit: 3,
        startingAfter: ids[1]!,
      });
      expect(last.entries.map((found) => found.requestId)).toEqual(ids.slice(2));
      expect(last.hasMore).toBe(false);
    });

    it('filters by status class and mode', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const ok = entry(project.id, T0, { status: 201, mode: 'live' });
      const refused = entry(project.id, T0 + 1, { status: 409, code: 'NO_CONNECTED_BROWSER', mode: 'test' });
      const failed = entry(project.id, T0 + 2, { status: 500, code: 'INTERNAL_ERROR', mode: 'live' });
      await store.appendRequestLog([ok, refused, failed]);
      expect(await list(store, project.id, { statusClass: '2xx' })).toEqual([ok.requestId]);
      expect(await list(store, project.id, { statusClass: '4xx' })).toEqual([refused.requestId]);
      expect(await list(store, project.id, { statusClass: '5xx' })).toEqual([failed.requestId]);
      expect(await list(store, project.id, { mode: 'live' })).toEqual([failed.requestId, ok.requestId]);
      expect(await list(store, project.id, { mode: 'test', statusClass: '2xx' })).toEqual([]);
    });

    it('finds entries by request id, by any notification they concern, by Idempotency-Key or recipient', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const other = await seedProject(store);
      const [n1, n2] = [newId('ntf', T0), newId('ntf', T0 + 1)];
      const send = entry(project.id, T0, { idempotencyKey: 'order-7', recipient: 'user-1', notificationIds: [n1!] });
      const mark = entry(project.id, T0 + 1, { recipient: 'user-2', notificationIds: [n1!, n2!] });
      const read = entry(project.id, T0 + 2, { recipient: 'order-7', notificationIds: [n2!] });
      const elsewhere = entry(other.id, T0 + 3, { idempotencyKey: 'order-7', notificationIds: [n1!] });
      await store.appendRequestLog([send, mark, read, elsewhere]);
      const search = (value: Parameters<Store['listRequestLog']>[0]['search']) =>
        list(store, project.id, { search: value });
      expect(await search({ requestId: mark.requestId })).toEqual([mark.requestId]);
      expect(await search({ requestId: elsewhere.requestId })).toEqual([]);
      expect(await search({ notificationId: n1! })).toEqual([mark.requestId, send.requestId]);
      expect(await search({ notificationId: n2! })).toEqual([read.requestId, mark.requestId]);
      expect(await search({ keyOrRecipient: 'order-7' })).toEqual([read.requestId, send.requestId]);
      expect(await search({ keyOrRecipient: 'user-2' })).toEqual([mark.requestId]);
      expect(await search({ keyOrRecipient: 'user' })).toEqual([]);
      expect(await list(store, project.id, { search: { notificationId: n1! }, statusClass: '4xx' })).toEqual([]);
    });

    it('filters by code, key prefix, recipient and time range, combined with each other and a search', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const n1 = newId('ntf', T0);
      const refused = entry(project.id, T0, {
        status: 409,
        code: 'NO_CONNECTED_BROWSER',
        keyPrefix: 'sk_live_AAAA',
        mode: 'live',
        recipient: 'bob',
        idempotencyKey: 'order-1',
      });
      const limited = entry(project.id, T0 + 1000, {
        status: 429,
        code: 'RATE_LIMITED',
        keyPrefix: 'sk_live_AAAA',
        mode: 'live',
        recipient: 'bob',
      });
      const sent = entry(project.id, T0 + 2000, { keyPrefix: 'sk_test_BBBB', recipient: 'bob', notificationIds: [n1] });
      const other = entry(project.id, T0 + 3000, { keyPrefix: 'sk_test_BBBB', recipient: 'ann' });
      await store.appendRequestLog([refused, limited, sent, other]);
      expect(await list(store, project.id, { code: 'RATE_LIMITED' })).toEqual([limited.requestId]);
      expect(await list(store, project.id, { keyPrefix: 'sk_live_AAAA' })).toEqual([
        limited.requestId,
        refused.requestId,
      ]);
      expect(await list(store, project.id, { recipient: 'bob' })).toEqual([
        sent.requestId,
        limited.requestId,
        refused.requestId,
      ]);
      expect(
        await list(store, project.id, { recipient: 'bob', statusClass: '4xx', keyPrefix: 'sk_live_AAAA' }),
      ).toEqual([limited.requestId, refused.requestId]);
      expect(await list(store, project.id, { createdFrom: T0 + 1000, createdBefore: T0 + 3000 })).toEqual([
        sent.requestId,
        limited.requestId,
      ]);
      expect(await list(store, project.id, { recipient: 'bob', search: { keyOrRecipient: 'order-1' } })).toEqual([
        refused.requestId,
      ]);
      expect(await list(store, project.id, { recipient: 'ann', search: { notificationId: n1 } })).toEqual([]);
      expect(await list(store, project.id, { recipient: 'bob', search: { notificationId: n1 } })).toEqual([
        sent.requestId,
      ]);
    });

    it('purges entries older than a time, oldest first, at most a batch at a time', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const notificationId = newId('ntf', T0);
      const old = Array.from({ length: 5 }, (_, i) => entry(project.id, T0 + i, { notificationIds: [notificationId] }));
      const recent = entry(project.id, T0 + DAY_MS, { notificationIds: [notificationId] });
      await store.appendRequestLog([...old, recent]);
      expect(await store.purgeRequestLog({ before: T0 + DAY_MS, limit: 3 })).toBe(3);
      expect(await list(store, project.id)).toEqual([recent, old[4]!, old[3]!].map((kept) => kept.requestId));
      expect(await store.purgeRequestLog({ before: T0 + DAY_MS, limit: 3 })).toBe(2);
      expect(await store.purgeRequestLog({ before: T0 + DAY_MS, limit: 3 })).toBe(0);
      expect(await list(store, project.id, { search: { notificationId } })).toEqual([recent.requestId]);
    });

    it('deletes a project’s entries with the project', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const kept = await seedProject(store);
      const notificationId = newId('ntf', T0);
      const gone = entry(project.id, T0, { notificationIds: [notificationId] });
      const stays = entry(kept.id, T0 + 1, { notificationIds: [notificationId] });
      await store.appendRequestLog([gone, stays]);
      expect(await store.deleteProject({ id: project.id })).toBe(true);
      expect(await store.getRequestLogEntry({ projectId: project.id, requestId: gone.requestId })).toBeNull();
      expect(await list(store, kept.id, { search: { notificationId } })).toEqual([stays.requestId]);
    });

    it('keeps every entry of batches written at once', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const batches = Array.from({ length: 4 }, (_, b) =>
        Array.from({ length: 25 }, (_, i) => entry(project.id, T0 + b * 100 + i)),
      );
      await Promise.all(batches.map((batch) => store.appendRequestLog(batch)));
      expect(await list(store, project.id)).toHaveLength(100);
    });
  });
}
