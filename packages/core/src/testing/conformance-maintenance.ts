import { describe, expect, it } from 'vitest';
import type {
  AccountStore,
  BrowserStore,
  DeliveryStore,
  IdempotencyStore,
  MaintenanceStore,
  NotificationStore,
} from '../ports/store.js';
import { hashSecret } from '../shared/secrets.js';
import { DAY_MS, type GetStore, readBack, seedBrowser, seedProject, send, sendCreated, T0 } from './fixtures.js';

/** The sweeps: attempts past their notification's expiry, and expired tokens and idempotency records. */
export function maintenanceConformance(
  getStore: GetStore<
    AccountStore & BrowserStore & DeliveryStore & IdempotencyStore & MaintenanceStore & NotificationStore
  >,
): void {
  describe('expireAttempts', () => {
    it('expires the attempts that are not final of notifications whose expiresAt <= now', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const a = await seedBrowser(store, project.id, 'user-1');
      const b = await seedBrowser(store, project.id, 'user-1');
      const short = await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0, ttl: 60 });
      const long = await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0, ttl: 120 });
      const test = await sendCreated(store, {
        projectId: project.id,
        recipient: 'user-1',
        mode: 'test',
        now: T0,
        ttl: 1,
      });
      const deliveredId = short.attempts.find((attempt) => attempt.browserId === a.id)!.id;
      const pending = short.attempts.find((attempt) => attempt.browserId === b.id)!;
      await store.applyReceipts({
        browserId: a.id,
        receipts: [{ type: 'delivered', attemptId: deliveredId, at: T0 + 1 }],
        now: T0 + 1,
      });
      await store.markAttemptsSent({ attemptIds: [pending.id], now: T0 + 2, via: 'stream' });

      expect(await store.expireAttempts({ now: T0 + 59_999 })).toEqual([]);
      const expiredAt = T0 + 60_000;
      expect(await store.expireAttempts({ now: expiredAt })).toEqual([{ attemptId: pending.id, browserId: b.id }]);

      const read = await readBack(store, project.id, short.notification.id);
      expect(read.attempts.find((attempt) => attempt.id === pending.id)).toEqual({
        ...pending,
        status: 'expired',
        final: true,
        sentAt: T0 + 2,
        sentVia: 'stream',
        expiredAt,
        reason: 'ttl_expired',
      });
      expect(read.attempts.find((attempt) => attempt.id === deliveredId)).toMatchObject({
        status: 'delivered',
        expiredAt: null,
        reason: null,
      });
      expect(await readBack(store, project.id, long.notification.id)).toEqual(long);
      expect(await readBack(store, project.id, test.notification.id)).toEqual(test);
      expect(await store.expireAttempts({ now: expiredAt + 1 })).toEqual([]);

      const later = await store.expireAttempts({ now: T0 + 120_000 });
      expect(later.map((ended) => ended.attemptId).sort()).toEqual(long.attempts.map((attempt) => attempt.id).sort());
      expect(later.map((ended) => ended.browserId).sort()).toEqual([a.id, b.id].sort());
    });
  });

  describe('purgeExpired', () => {
    it('shows an expiry to a read of a notification that was read just before', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await seedBrowser(store, project.id, 'user-1');
      const short = await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0, ttl: 60 });
      expect((await readBack(store, project.id, short.notification.id)).attempts[0]!.status).toBe('accepted');
      await store.expireAttempts({ now: T0 + 60_000 });
      expect((await readBack(store, project.id, short.notification.id)).attempts[0]).toMatchObject({
        status: 'expired',
        final: true,
        expiredAt: T0 + 60_000,
      });
    });

    it('deletes connect tokens past their expiry and keeps the others', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const old = hashSecret('ct_old');
      const fresh = hashSecret('ct_fresh');
      await store.createConnectToken({ hash: old, projectId: project.id, recipient: 'u', now: T0, expiresAt: T0 + 10 });
      await store.createConnectToken({
        hash: fresh,
        projectId: project.id,
        recipient: 'u',
        now: T0,
        expiresAt: T0 + 1000,
      });
      await store.purgeExpired({ now: T0 + 10 });
      expect(await store.findConnectToken(old)).toBeNull();
      expect((await store.findConnectToken(fresh))?.expiresAt).toBe(T0 + 1000);
    });

    it('purges idempotency results past their expiry and keeps the others', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await seedBrowser(store, project.id, 'user-1');
      const find = (key: string, now: number) =>
        store.findIdempotentResponse({ projectId: project.id, key, fingerprint: 'fp-a', now });
      const kept = await send(store, { projectId: project.id, recipient: 'user-1', idempotencyKey: 'kept' });
      if (kept.kind !== 'created') throw new Error(kept.kind);
      await send(store, {
        projectId: project.id,
        recipient: 'user-1',
        idempotencyKey: 'old',
        idempotencyExpiresAt: T0 + 5,
      });
      await store.purgeExpired({ now: T0 + 10 });
      expect(await find('kept', T0 + 3)).toEqual({ kind: 'replay', status: 201, body: kept.response.body });
      // Purged, not merely expired: a read at a time before its expiry finds nothing either.
      expect(await find('old', T0 + 1)).toEqual({ kind: 'none' });
      await store.purgeExpired({ now: T0 + DAY_MS + 1 });
      expect(await find('kept', T0 + 3)).toEqual({ kind: 'none' });
    });
  });
}
