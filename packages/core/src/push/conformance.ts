import { describe, expect, it } from 'vitest';
import type {
  AccountStore,
  BrowserStore,
  DeliveryStore,
  JobStore,
  NotificationStore,
  ProjectAdminStore,
  PushStore,
} from '../ports/store.js';
import { type GetStore, readBack, seedBrowser, seedProject, sendCreated, T0 } from '../testing/fixtures.js';
import { PUSH_JOB_KIND, pushJobsForSend } from './send-jobs.js';

const P256DH = `B${'A'.repeat(86)}`;
const AUTH = 'A'.repeat(22);

function subscription(browserId: string, now = T0, endpoint = 'https://push.example/sub/1') {
  return { browserId, endpoint, p256dh: P256DH, auth: AUTH, expiresAt: null, now };
}

/** VAPID keys, push subscriptions, and what a push does to an attempt (docs/web-push.md). */
export function pushConformance(
  getStore: GetStore<
    AccountStore & BrowserStore & DeliveryStore & JobStore & NotificationStore & ProjectAdminStore & PushStore
  >,
): void {
  describe('VAPID keys', () => {
    it('keeps the first pair stored, and rotation replaces it', async () => {
      const store = getStore();
      expect(await store.getVapidKeys()).toBeNull();
      const first = await store.ensureVapidKeys({ publicKey: 'pub-1', privateKey: 'priv-1', now: T0 });
      expect(first).toEqual({ publicKey: 'pub-1', privateKey: 'priv-1', createdAt: T0 });
      const again = await store.ensureVapidKeys({ publicKey: 'pub-2', privateKey: 'priv-2', now: T0 + 1 });
      expect(again).toEqual(first);
      expect(await store.getVapidKeys()).toEqual(first);
      const rotated = await store.rotateVapidKeys({ publicKey: 'pub-3', privateKey: 'priv-3', now: T0 + 2 });
      expect(rotated).toEqual({ publicKey: 'pub-3', privateKey: 'priv-3', createdAt: T0 + 2 });
      expect(await store.getVapidKeys()).toEqual(rotated);
    });

    it('ends concurrent first stores with one pair', async () => {
      const store = getStore();
      const results = await Promise.all(
        [1, 2, 3, 4, 5].map((n) => store.ensureVapidKeys({ publicKey: `pub-${n}`, privateKey: `priv-${n}`, now: T0 })),
      );
      expect(new Set(results.map((keys) => keys.publicKey)).size).toBe(1);
      expect((await store.getVapidKeys())?.publicKey).toBe(results[0]!.publicKey);
    });
  });

  describe('push subscriptions', () => {
    it('saves, replaces, reads and deletes a browser’s subscription', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      expect(await store.getPushSubscription(browser.id)).toBeNull();
      const saved = await store.putPushSubscription(subscription(browser.id, T0 + 10));
      expect(saved).toEqual({
        kind: 'saved',
        subscription: {
          browserId: browser.id,
          projectId: project.id,
          endpoint: 'https://push.example/sub/1',
          p256dh: P256DH,
          auth: AUTH,
          createdAt: T0 + 10,
          updatedAt: T0 + 10,
          expiresAt: null,
        },
      });
      // Saving makes the browser seen.
      expect((await store.findBrowser(browser.id))?.browser.lastSeenAt).toBe(T0 + 10);
      // The same endpoint renewed keeps its creation; another one is a new subscription.
      const renewed = await store.putPushSubscription({ ...subscription(browser.id, T0 + 20), expiresAt: T0 + 99 });
      expect(renewed.kind === 'saved' && renewed.subscription).toMatchObject({
        createdAt: T0 + 10,
        updatedAt: T0 + 20,
        expiresAt: T0 + 99,
      });
      const replaced = await store.putPushSubscription(subscription(browser.id, T0 + 30, 'https://push.example/sub/2'));
      expect(replaced.kind === 'saved' && replaced.subscription).toMatchObject({
        endpoint: 'https://push.example/sub/2',
        createdAt: T0 + 30,
        updatedAt: T0 + 30,
      });
      expect(await store.getPushSubscription(browser.id)).toEqual(replaced.kind === 'saved' && replaced.subscription);
      expect(await store.deletePushSubscription({ browserId: browser.id })).toBe(true);
      expect(await store.deletePushSubscription({ browserId: browser.id })).toBe(false);
      expect(await store.getPushSubscription(browser.id)).toBeNull();
    });

    it('refuses a subscription of a disconnected or unknown browser', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      await store.disconnectBrowser({ browserId: browser.id, reason: 'browser_disconnected', now: T0 + 1 });
      expect(await store.putPushSubscription(subscription(browser.id))).toEqual({ kind: 'browser-disconnected' });
      expect(await store.putPushSubscription(subscription('brw_00000000000000000000000000'))).toEqual({
        kind: 'not-found',
      });
    });

    it('drops the subscription when its browser is disconnected', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      await store.putPushSubscription(subscription(browser.id));
      await store.disconnectBrowser({ browserId: browser.id, reason: 'browser_disconnected', now: T0 + 1 });
      expect(await store.getPushSubscription(browser.id)).toBeNull();
    });

    it('lists the connected browsers of a recipient that have a subscription', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const subscribed = await seedBrowser(store, project.id, 'user-1');
      await seedBrowser(store, project.id, 'user-1');
      const other = await seedBrowser(store, project.id, 'user-2');
      await store.putPushSubscription(subscription(subscribed.id));
      await store.putPushSubscription(subscription(other.id));
      expect(await store.listPushSubscribedBrowsers({ projectId: project.id, recipient: 'user-1' })).toEqual([
        subscribed.id,
      ]);
      await store.disconnectBrowser({ browserId: subscribed.id, reason: 'browser_disconnected', now: T0 + 1 });
      expect(await store.listPushSubscribedBrowsers({ projectId: project.id, recipient: 'user-1' })).toEqual([]);
    });

    it('keeps a subscribed browser past the stale limit until the push retention, then drops both', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const plain = await seedBrowser(store, project.id, 'user-1');
      const subscribed = await seedBrowser(store, project.id, 'user-1');
      await store.putPushSubscription(subscription(subscribed.id, T0));
      const reaped = await store.reapStaleBrowsers({ seenBefore: T0 + 1000, pushSeenBefore: T0 - 1, now: T0 + 2000 });
      expect(reaped.map((browser) => browser.browserId)).toEqual([plain.id]);
      expect((await store.findBrowser(subscribed.id))?.browser.connected).toBe(true);
      const later = await store.reapStaleBrowsers({ seenBefore: T0 + 5000, pushSeenBefore: T0 + 1, now: T0 + 6000 });
      expect(later.map((browser) => browser.browserId)).toEqual([subscribed.id]);
      expect(await store.getPushSubscription(subscribed.id)).toBeNull();
      // Without a push retention, a subscription does not keep a browser.
      const third = await seedBrowser(store, project.id, 'user-1', T0);
      await store.putPushSubscription(subscription(third.id, T0));
      const plainReap = await store.reapStaleBrowsers({ seenBefore: T0 + 1000, now: T0 + 7000 });
      expect(plainReap.map((browser) => browser.browserId)).toEqual([third.id]);
    });

    it('deletes subscriptions with their project', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      await store.putPushSubscription(subscription(browser.id));
      expect(await store.deleteProject({ id: project.id })).toBe(true);
      expect(await store.getPushSubscription(browser.id)).toBeNull();
    });
  });

  describe('attempts pushed', () => {
    it('records the push service’s acceptance once, as the path the attempt went out by', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const created = await sendCreated(store, { projectId: project.id, recipient: 'user-1' });
      const attemptId = created.attempts[0]!.id;
      expect(await store.markAttemptPushed({ attemptId, now: T0 + 100 })).toBe(true);
      expect(await store.markAttemptPushed({ attemptId, now: T0 + 200 })).toBe(true);
      const [attempt] = (await readBack(store, project.id, created.notification.id)).attempts;
      expect(attempt).toMatchObject({
        browserId: browser.id,
        status: 'sent',
        final: false,
        sentAt: T0 + 100,
        sentVia: 'push',
        pushAcceptedAt: T0 + 100,
      });
      expect(await store.markAttemptPushed({ attemptId: 'att_00000000000000000000000000', now: T0 })).toBe(false);
    });

    it('keeps the status and path of an attempt already delivered over its stream', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await seedBrowser(store, project.id, 'user-1');
      const created = await sendCreated(store, { projectId: project.id, recipient: 'user-1' });
      const attempt = created.attempts[0]!;
      await store.markAttemptsSent({ attemptIds: [attempt.id], now: T0 + 10, via: 'stream' });
      await store.applyReceipts({
        browserId: attempt.browserId,
        receipts: [{ type: 'delivered', attemptId: attempt.id, at: T0 + 20 }],
        now: T0 + 20,
      });
      await store.markAttemptPushed({ attemptId: attempt.id, now: T0 + 30 });
      const [read] = (await readBack(store, project.id, created.notification.id)).attempts;
      expect(read).toMatchObject({ status: 'delivered', sentVia: 'stream', sentAt: T0 + 10, pushAcceptedAt: T0 + 30 });
    });

    it('fails one attempt that is not final, with its reason', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await seedBrowser(store, project.id, 'user-1');
      await seedBrowser(store, project.id, 'user-1');
      const created = await sendCreated(store, { projectId: project.id, recipient: 'user-1' });
      const [first, second] = created.attempts;
      expect(await store.failAttempt({ attemptId: first!.id, reason: 'push_rejected', now: T0 + 5 })).toBe(true);
      expect(await store.failAttempt({ attemptId: first!.id, reason: 'push_rejected', now: T0 + 6 })).toBe(false);
      const read = await readBack(store, project.id, created.notification.id);
      expect(read.attempts.find((a) => a.id === first!.id)).toMatchObject({
        status: 'failed',
        final: true,
        reason: 'push_rejected',
        failedAt: T0 + 5,
      });
      expect(read.attempts.find((a) => a.id === second!.id)).toMatchObject({ status: 'accepted', final: false });
    });

    it('enqueues push jobs with a send, in its transaction, due after the grace', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const subscribed = await seedBrowser(store, project.id, 'user-1');
      await seedBrowser(store, project.id, 'user-1');
      const created = await sendCreated(store, {
        projectId: project.id,
        recipient: 'user-1',
        jobs: (result) => pushJobsForSend(result, new Set([subscribed.id]), 4000),
      });
      const jobs = await store.listJobs({ projectId: project.id, kind: PUSH_JOB_KIND, limit: 10 });
      const attempt = created.attempts.find((a) => a.browserId === subscribed.id)!;
      expect(jobs).toHaveLength(1);
      expect(jobs[0]).toMatchObject({
        kind: 'push',
        key: `push:${subscribed.id}`,
        status: 'pending',
        runAt: T0 + 4000,
        payload: { attemptId: attempt.id, notificationId: created.notification.id, browserId: subscribed.id },
      });
      // Test mode pushes nothing.
      const test = await sendCreated(store, {
        projectId: project.id,
        recipient: 'user-1',
        mode: 'test',
        jobs: (result) => pushJobsForSend(result, new Set([subscribed.id]), 4000),
      });
      expect(test.attempts).toHaveLength(2);
      expect(await store.listJobs({ projectId: project.id, kind: PUSH_JOB_KIND, limit: 10 })).toHaveLength(1);
    });
  });
}
