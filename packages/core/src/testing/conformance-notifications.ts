import { describe, expect, it } from 'vitest';
import type {
  AccountStore,
  BrowserStore,
  DeliveryStore,
  NotificationStore,
  ProjectAdminStore,
  UsageStore,
} from '../ports/store.js';
import { utcDay } from '../shared/time.js';
import { DAY_MS, type GetStore, readBack, seedBrowser, seedProject, send, sendCreated, T0 } from './fixtures.js';

/** Usage days that counted anything: whether a store also lists empty days is left open. */
async function usage(
  store: AccountStore & BrowserStore & DeliveryStore & NotificationStore & ProjectAdminStore & UsageStore,
  projectId: string,
  fromDay: string,
  toDay: string,
) {
  const days = await store.getUsage({ projectId, fromDay, toDay });
  return days.filter((day) => day.notifications > 0 || day.attempts > 0);
}

/** Creating and reading notifications: attempts per connected browser, modes, seq, usage. */
export function notificationConformance(
  getStore: GetStore<AccountStore & BrowserStore & DeliveryStore & NotificationStore & ProjectAdminStore & UsageStore>,
): void {
  describe('notifications', () => {
    it('refuses a recipient without a connected browser, recording nothing', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const other = await seedProject(store);
      await seedBrowser(store, project.id, 'someone-else');
      await seedBrowser(store, other.id, 'user-1');
      const gone = await seedBrowser(store, project.id, 'user-1');
      await store.disconnectBrowser({ browserId: gone.id, reason: 'browser_disconnected', now: T0 });
      for (const mode of ['live', 'test'] as const) {
        expect(await send(store, { projectId: project.id, recipient: 'user-1', mode })).toEqual({
          kind: 'no-connected-browser',
        });
      }
      expect(await usage(store, project.id, '2025-12-01', '2026-02-01')).toEqual([]);
    });

    it('records one live attempt per connected browser, accepted and not final', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const first = await seedBrowser(store, project.id, 'user-1', T0 - 2000);
      const second = await seedBrowser(store, project.id, 'user-1', T0 - 1000);
      const result = await send(store, { projectId: project.id, recipient: 'user-1', now: T0, ttl: 600 });
      if (result.kind !== 'created') throw new Error(result.kind);
      const { notification, attempts } = result.created;
      expect(notification).toMatchObject({
        projectId: project.id,
        mode: 'live',
        recipient: 'user-1',
        title: 'Hello',
        body: 'Body text',
        url: 'https://example.com/a',
        icon: null,
        tag: 'greeting',
        data: { order: 42, nested: { ok: true } },
        ttl: 600,
        createdAt: T0,
        expiresAt: T0 + 600_000,
      });
      expect(attempts.map((attempt) => attempt.browserId).sort()).toEqual([first.id, second.id].sort());
      expect(new Set(attempts.map((attempt) => attempt.id)).size).toBe(2);
      for (const attempt of attempts) {
        expect(attempt).toEqual({
          id: attempt.id,
          notificationId: notification.id,
          browserId: attempt.browserId,
          seq: 1,
          status: 'accepted',
          final: false,
          acceptedAt: T0,
          sentAt: null,
          sentVia: null,
          pushAcceptedAt: null,
          deliveredAt: null,
          failedAt: null,
          expiredAt: null,
          reason: null,
          displayedAt: null,
          clickedAt: null,
          dismissedAt: null,
        });
      }
      expect(await readBack(store, project.id, notification.id)).toEqual(result.created);
    });

    it('records test-mode attempts accepted and final at once', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await seedBrowser(store, project.id, 'user-1');
      await seedBrowser(store, project.id, 'user-1');
      const created = await sendCreated(store, {
        projectId: project.id,
        recipient: 'user-1',
        mode: 'test',
        data: null,
      });
      expect(created.notification.mode).toBe('test');
      expect(created.notification.data).toBeNull();
      expect(created.attempts).toHaveLength(2);
      for (const attempt of created.attempts) {
        expect(attempt).toMatchObject({ status: 'accepted', final: true, acceptedAt: T0, reason: null });
      }
      expect(await readBack(store, project.id, created.notification.id)).toEqual(created);
    });

    it('numbers attempts per browser from 1, in creation order', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const first = await seedBrowser(store, project.id, 'user-1');
      const a = await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 + 1 });
      const b = await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 + 2 });
      const second = await seedBrowser(store, project.id, 'user-1', T0 + 3);
      const c = await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 + 4 });
      const seqOf = (created: typeof a, browserId: string) =>
        created.attempts.find((attempt) => attempt.browserId === browserId)?.seq;
      expect([seqOf(a, first.id), seqOf(b, first.id), seqOf(c, first.id)]).toEqual([1, 2, 3]);
      expect(seqOf(c, second.id)).toBe(1);
      expect(a.attempts).toHaveLength(1);
      expect(c.attempts).toHaveLength(2);
    });

    it('reads a notification only within its project', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const other = await seedProject(store);
      await seedBrowser(store, project.id, 'user-1');
      const created = await sendCreated(store, { projectId: project.id, recipient: 'user-1' });
      expect(await store.getNotification({ projectId: other.id, id: created.notification.id })).toBeNull();
      expect(await store.getNotification({ projectId: project.id, id: 'ntf_unknown' })).toBeNull();
      expect(await store.getNotification({ projectId: project.id, id: created.notification.id })).toEqual(created);
    });

    it('counts live notifications and attempts per UTC day of creation, never test mode', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const other = await seedProject(store);
      await seedBrowser(store, project.id, 'user-1');
      await seedBrowser(store, project.id, 'user-1');
      await seedBrowser(store, other.id, 'user-1');
      const endOfDay = Date.UTC(2026, 0, 1, 23, 59, 59, 999);
      await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 });
      await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: endOfDay });
      await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: endOfDay + 1 });
      await sendCreated(store, { projectId: project.id, recipient: 'user-1', mode: 'test', now: T0 });
      await sendCreated(store, { projectId: other.id, recipient: 'user-1', now: T0 });
      const day1 = utcDay(T0);
      const day2 = utcDay(T0 + DAY_MS);
      expect(await usage(store, project.id, '2025-12-01', '2026-02-01')).toEqual([
        { day: day1, notifications: 2, attempts: 4 },
        { day: day2, notifications: 1, attempts: 2 },
      ]);
      expect(await usage(store, project.id, day2, day2)).toEqual([{ day: day2, notifications: 1, attempts: 2 }]);
      expect(await usage(store, project.id, '2025-12-01', day1)).toEqual([
        { day: day1, notifications: 2, attempts: 4 },
      ]);
      expect(await usage(store, other.id, day1, day2)).toEqual([{ day: day1, notifications: 1, attempts: 1 }]);
    });

    it('records the sending key, the request id and the Idempotency-Key with the notification', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await seedBrowser(store, project.id, 'user-1');
      const withKey = await sendCreated(store, {
        projectId: project.id,
        recipient: 'user-1',
        apiKeyId: 'key_01jdv5cz00k2a7d3m9qx4w8t6e',
        requestId: 'req_01jdv5cz00k2a7d3m9qx4w8t6f',
        idempotencyKey: 'order-42/shipped',
      });
      const withoutKey = await sendCreated(store, {
        projectId: project.id,
        recipient: 'user-1',
        mode: 'test',
        now: T0 + 1,
        apiKeyId: 'key_01jdv5cz00k2a7d3m9qx4w8t6g',
        requestId: 'req_01jdv5cz00k2a7d3m9qx4w8t6h',
      });
      const read = await readBack(store, project.id, withKey.notification.id);
      expect(read.notification).toMatchObject({
        apiKeyId: 'key_01jdv5cz00k2a7d3m9qx4w8t6e',
        requestId: 'req_01jdv5cz00k2a7d3m9qx4w8t6f',
        idempotencyKey: 'order-42/shipped',
      });
      expect((await readBack(store, project.id, withoutKey.notification.id)).notification).toMatchObject({
        apiKeyId: 'key_01jdv5cz00k2a7d3m9qx4w8t6g',
        requestId: 'req_01jdv5cz00k2a7d3m9qx4w8t6h',
        idempotencyKey: null,
      });
      const listed = await store.listNotifications({
        projectId: project.id,
        beforeId: null,
        limit: 10,
        recipient: null,
        mode: null,
      });
      expect(listed.map((item) => item.notification.requestId)).toEqual([
        'req_01jdv5cz00k2a7d3m9qx4w8t6h',
        'req_01jdv5cz00k2a7d3m9qx4w8t6f',
      ]);
    });

    it('breaks usage down per UTC day and mode, with the attempts sent and delivered', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const other = await seedProject(store);
      const first = await seedBrowser(store, project.id, 'user-1');
      await seedBrowser(store, project.id, 'user-1');
      await seedBrowser(store, other.id, 'user-1');
      const endOfDay = Date.UTC(2026, 0, 1, 23, 59, 59, 999);
      const a = await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 });
      await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: endOfDay });
      await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: endOfDay + 1 });
      await sendCreated(store, { projectId: project.id, recipient: 'user-1', mode: 'test', now: T0 });
      await sendCreated(store, { projectId: other.id, recipient: 'user-1', now: T0 });
      // Both attempts of the first send are written to their streams; the first browser confirms its own.
      await store.markAttemptsSent({
        attemptIds: a.attempts.map((attempt) => attempt.id),
        now: T0 + 10,
        via: 'stream',
      });
      const own = a.attempts.find((attempt) => attempt.browserId === first.id)!;
      await store.applyReceipts({
        browserId: first.id,
        receipts: [{ type: 'delivered', attemptId: own.id, at: T0 + 20 }],
        now: T0 + 20,
      });
      const day1 = utcDay(T0);
      const day2 = utcDay(T0 + DAY_MS);
      const dayStart = Date.UTC(2026, 0, 1);
      expect(
        await store.getUsageBreakdown({ projectId: project.id, from: dayStart - DAY_MS, to: dayStart + 3 * DAY_MS }),
      ).toEqual([
        { day: day1, mode: 'live', notifications: 2, attempts: 4, sent: 2, delivered: 1 },
        { day: day1, mode: 'test', notifications: 1, attempts: 2, sent: 0, delivered: 0 },
        { day: day2, mode: 'live', notifications: 1, attempts: 2, sent: 0, delivered: 0 },
      ]);
      // [from, to): the end is left out, the start kept.
      expect(await store.getUsageBreakdown({ projectId: project.id, from: dayStart, to: endOfDay })).toEqual([
        { day: day1, mode: 'live', notifications: 1, attempts: 2, sent: 2, delivered: 1 },
        { day: day1, mode: 'test', notifications: 1, attempts: 2, sent: 0, delivered: 0 },
      ]);
      expect(
        await store.getUsageBreakdown({ projectId: project.id, from: endOfDay + 1, to: endOfDay + 1 + DAY_MS }),
      ).toEqual([{ day: day2, mode: 'live', notifications: 1, attempts: 2, sent: 0, delivered: 0 }]);
      expect(
        await store.getUsageBreakdown({
          projectId: project.id,
          from: dayStart + 5 * DAY_MS,
          to: dayStart + 9 * DAY_MS,
        }),
      ).toEqual([]);
    });
  });
}
