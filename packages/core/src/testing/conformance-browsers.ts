import { describe, expect, it } from 'vitest';
import type { AccountStore, BrowserStore, DeliveryStore, NotificationStore } from '../ports/store.js';
import { newId } from '../shared/ids.js';
import { hashSecret } from '../shared/secrets.js';
import { type GetStore, readBack, seedBrowser, seedProject, send, sendCreated, T0 } from './fixtures.js';

/** Connect tokens, browser registration and lookup, disconnection, liveness and reaping. */
export function browserConformance(
  getStore: GetStore<AccountStore & BrowserStore & DeliveryStore & NotificationStore>,
): void {
  describe('connect tokens', () => {
    it('stores a token by hash and finds it with its project', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const hash = hashSecret('ct_token-one');
      await store.createConnectToken({
        hash,
        projectId: project.id,
        recipient: 'user-1',
        now: T0,
        expiresAt: T0 + 3_600_000,
      });
      expect(await store.findConnectToken(hash)).toEqual({
        projectId: project.id,
        recipient: 'user-1',
        expiresAt: T0 + 3_600_000,
        project,
      });
      expect(await store.findConnectToken(hashSecret('ct_other'))).toBeNull();
      await store.setProjectSuspended({ id: project.id, suspended: true, now: T0 + 1 });
      expect((await store.findConnectToken(hash))?.project.suspended).toBe(true);
    });

    it('lets several tokens name one recipient', async () => {
      const store = getStore();
      const project = await seedProject(store);
      for (const value of ['ct_a', 'ct_b']) {
        await store.createConnectToken({
          hash: hashSecret(value),
          projectId: project.id,
          recipient: 'user-1',
          now: T0,
          expiresAt: T0 + 1000,
        });
      }
      expect((await store.findConnectToken(hashSecret('ct_a')))?.recipient).toBe('user-1');
      expect((await store.findConnectToken(hashSecret('ct_b')))?.recipient).toBe('user-1');
    });
  });

  describe('browsers', () => {
    it('registers a connected browser and finds it with its project', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await store.createConnectToken({
        hash: hashSecret('ct_x'),
        projectId: project.id,
        recipient: 'user-1',
        now: T0,
        expiresAt: T0 + 1000,
      });
      const id = newId('brw', T0);
      const browser = await store.registerBrowser({
        id,
        projectId: project.id,
        recipient: 'user-1',
        secretHash: hashSecret('bs_secret'),
        now: T0 + 5,
      });
      const expected = {
        id,
        projectId: project.id,
        recipient: 'user-1',
        secretHash: hashSecret('bs_secret'),
        connected: true,
        disconnectReason: null,
        createdAt: T0 + 5,
        lastSeenAt: T0 + 5,
        disconnectedAt: null,
      };
      expect(browser).toEqual(expected);
      expect(await store.findBrowser(id)).toEqual({ browser: expected, project });
      expect(await store.findBrowser('brw_unknown')).toBeNull();
    });

    it('disconnects a browser: its attempts that are not final fail with the reason', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const other = await seedBrowser(store, project.id, 'user-1');
      const delivered = await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 + 1 });
      const deliveredAttempt = delivered.attempts.find((attempt) => attempt.browserId === browser.id)!;
      await store.applyReceipts({
        browserId: browser.id,
        receipts: [{ type: 'delivered', attemptId: deliveredAttempt.id, at: T0 + 2 }],
        now: T0 + 2,
      });
      const testMode = await sendCreated(store, {
        projectId: project.id,
        recipient: 'user-1',
        mode: 'test',
        now: T0 + 3,
      });
      const pending = [
        await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 + 4 }),
        await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 + 5 }),
      ];
      const pendingIds = pending.map((created) => created.attempts.find((a) => a.browserId === browser.id)!.id);
      await store.markAttemptsSent({ attemptIds: [pendingIds[0]!], now: T0 + 6, via: 'stream' });

      const result = await store.disconnectBrowser({
        browserId: browser.id,
        reason: 'browser_disconnected',
        now: T0 + 10,
      });
      expect(result.kind).toBe('disconnected');
      if (result.kind !== 'disconnected') return;
      expect([...result.failedAttemptIds].sort()).toEqual([...pendingIds].sort());

      for (const created of pending) {
        const read = await readBack(store, project.id, created.notification.id);
        const mine = read.attempts.find((attempt) => attempt.browserId === browser.id);
        expect(mine).toMatchObject({
          status: 'failed',
          final: true,
          failedAt: T0 + 10,
          reason: 'browser_disconnected',
        });
        const theirs = read.attempts.find((attempt) => attempt.browserId === other.id);
        expect(theirs).toMatchObject({ status: 'accepted', final: false, failedAt: null, reason: null });
      }
      const stillDelivered = await readBack(store, project.id, delivered.notification.id);
      expect(stillDelivered.attempts.find((a) => a.id === deliveredAttempt.id)).toMatchObject({
        status: 'delivered',
        final: true,
        failedAt: null,
        reason: null,
      });
      expect(await readBack(store, project.id, testMode.notification.id)).toEqual(testMode);

      expect((await store.findBrowser(browser.id))?.browser).toEqual({
        ...browser,
        connected: false,
        disconnectReason: 'browser_disconnected',
        disconnectedAt: T0 + 10,
      });
      expect(await store.listDeliveries({ browserId: browser.id, now: T0 + 11 })).toEqual([]);
    });

    it('answers already-disconnected and not-found, and a disconnected browser receives nothing', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      expect(await store.disconnectBrowser({ browserId: browser.id, reason: 'browser_disconnected', now: T0 })).toEqual(
        {
          kind: 'disconnected',
          failedAttemptIds: [],
        },
      );
      expect(await store.disconnectBrowser({ browserId: browser.id, reason: 'browser_stale', now: T0 + 1 })).toEqual({
        kind: 'already-disconnected',
      });
      expect((await store.findBrowser(browser.id))?.browser).toMatchObject({
        disconnectReason: 'browser_disconnected',
        disconnectedAt: T0,
      });
      expect(await store.disconnectBrowser({ browserId: 'brw_unknown', reason: 'browser_stale', now: T0 })).toEqual({
        kind: 'not-found',
      });
      expect(await send(store, { projectId: project.id, recipient: 'user-1' })).toEqual({
        kind: 'no-connected-browser',
      });
    });

    it('reaps connected browsers not seen since seenBefore, as stale', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const quiet = await seedBrowser(store, project.id, 'user-1', T0);
      const active = await seedBrowser(store, project.id, 'user-1', T0);
      const gone = await seedBrowser(store, project.id, 'user-2', T0);
      await store.disconnectBrowser({ browserId: gone.id, reason: 'browser_disconnected', now: T0 + 1 });
      const created = await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 + 2 });

      await store.touchBrowsers({ browserIds: [active.id], now: T0 + 100_000 });
      expect((await store.findBrowser(active.id))?.browser.lastSeenAt).toBe(T0 + 100_000);
      expect((await store.findBrowser(quiet.id))?.browser.lastSeenAt).toBe(T0);

      const quietAttempt = created.attempts.find((attempt) => attempt.browserId === quiet.id)!;
      expect(await store.reapStaleBrowsers({ seenBefore: T0 + 50_000, now: T0 + 170_000 })).toEqual([
        { browserId: quiet.id, failedAttemptIds: [quietAttempt.id] },
      ]);
      expect((await store.findBrowser(quiet.id))?.browser).toMatchObject({
        connected: false,
        disconnectReason: 'browser_stale',
        disconnectedAt: T0 + 170_000,
      });
      expect((await store.findBrowser(active.id))?.browser.connected).toBe(true);
      expect((await store.findBrowser(gone.id))?.browser.disconnectReason).toBe('browser_disconnected');
      const read = await readBack(store, project.id, created.notification.id);
      expect(read.attempts.find((attempt) => attempt.browserId === quiet.id)).toMatchObject({
        status: 'failed',
        final: true,
        reason: 'browser_stale',
        failedAt: T0 + 170_000,
      });
      expect(read.attempts.find((attempt) => attempt.browserId === active.id)).toMatchObject({
        status: 'accepted',
        final: false,
      });
      expect(await store.reapStaleBrowsers({ seenBefore: T0 + 50_000, now: T0 + 180_000 })).toEqual([]);
      expect(await store.reapStaleBrowsers({ seenBefore: T0 + 100_000, now: T0 + 180_000 })).toEqual([]);
      const activeAttempt = created.attempts.find((attempt) => attempt.browserId === active.id)!;
      expect(await store.reapStaleBrowsers({ seenBefore: T0 + 100_001, now: T0 + 180_000 })).toEqual([
        { browserId: active.id, failedAttemptIds: [activeAttempt.id] },
      ]);
    });

    it('keeps a browser held by an instance fresh for as long as the instance is seen, with one write of its own', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const held = await seedBrowser(store, project.id, 'user-1', T0);
      const loose = await seedBrowser(store, project.id, 'user-1', T0);
      const created = await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 + 1 });
      const attemptOf = (browserId: string) => created.attempts.find((attempt) => attempt.browserId === browserId)!.id;

      await store.holdBrowsers({ instanceId: 'ins_a', browserIds: [held.id], now: T0 + 10 });
      expect((await store.findBrowser(held.id))?.browser.lastSeenAt).toBe(T0 + 10);
      // Held already: renewing the hold writes the instance, not the browser.
      await store.holdBrowsers({ instanceId: 'ins_a', browserIds: [held.id], now: T0 + 50_000 });
      await store.holdBrowsers({ instanceId: 'ins_a', browserIds: [], now: T0 + 100_000 });
      expect((await store.findBrowser(held.id))?.browser.lastSeenAt).toBe(T0 + 10);

      // Its own last sight is old, its holder's is not: only the loose browser is stale.
      expect(await store.reapStaleBrowsers({ seenBefore: T0 + 90_000, now: T0 + 120_000 })).toEqual([
        { browserId: loose.id, failedAttemptIds: [attemptOf(loose.id)] },
      ]);
      expect((await store.findBrowser(held.id))?.browser.connected).toBe(true);

      // The instance was not seen since: its browser is let go of, last seen when it was, and reaped.
      expect(await store.reapStaleBrowsers({ seenBefore: T0 + 100_000, now: T0 + 200_000 })).toEqual([]);
      expect(await store.reapStaleBrowsers({ seenBefore: T0 + 100_001, now: T0 + 200_000 })).toEqual([
        { browserId: held.id, failedAttemptIds: [attemptOf(held.id)] },
      ]);
      expect((await store.findBrowser(held.id))?.browser).toMatchObject({
        connected: false,
        disconnectReason: 'browser_stale',
        lastSeenAt: T0 + 100_000,
      });
      // A disconnected browser is not held again.
      await store.holdBrowsers({ instanceId: 'ins_a', browserIds: [held.id], now: T0 + 300_000 });
      expect((await store.findBrowser(held.id))?.browser.lastSeenAt).toBe(T0 + 100_000);
    });

    it('lets go of a browser released by its holder, and of none released by another instance', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1', T0);
      await store.holdBrowsers({ instanceId: 'ins_a', browserIds: [browser.id], now: T0 + 10 });
      // Its page moved to B (a stream on each for a while): B holds it now.
      await store.holdBrowsers({ instanceId: 'ins_b', browserIds: [browser.id], now: T0 + 20 });
      expect((await store.findBrowser(browser.id))?.browser.lastSeenAt).toBe(T0 + 20);
      // A's stream ends: seen then, still B's.
      await store.releaseBrowsers({ instanceId: 'ins_a', browserIds: [browser.id], now: T0 + 30 });
      await store.holdBrowsers({ instanceId: 'ins_b', browserIds: [], now: T0 + 100_000 });
      expect(await store.reapStaleBrowsers({ seenBefore: T0 + 90_000, now: T0 + 100_000 })).toEqual([]);

      // B's stream ends too: held by nobody, seen then, and stale once that is old.
      await store.releaseBrowsers({ instanceId: 'ins_b', browserIds: [browser.id], now: T0 + 100_010 });
      await store.holdBrowsers({ instanceId: 'ins_b', browserIds: [], now: T0 + 190_000 });
      expect(await store.reapStaleBrowsers({ seenBefore: T0 + 100_010, now: T0 + 190_000 })).toEqual([]);
      expect(await store.reapStaleBrowsers({ seenBefore: T0 + 100_011, now: T0 + 190_000 })).toEqual([
        { browserId: browser.id, failedAttemptIds: [] },
      ]);
    });

    it('takes back a browser that another instance let go of while a stream of it is still open here', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1', T0);
      await store.holdBrowsers({ instanceId: 'ins_a', browserIds: [browser.id], now: T0 + 10 });
      await store.holdBrowsers({ instanceId: 'ins_b', browserIds: [browser.id], now: T0 + 20 });
      await store.releaseBrowsers({ instanceId: 'ins_b', browserIds: [browser.id], now: T0 + 30 });
      // A still has a stream of it: its next renewal takes it back.
      await store.holdBrowsers({ instanceId: 'ins_a', browserIds: [browser.id], now: T0 + 40_000 });
      expect((await store.findBrowser(browser.id))?.browser.lastSeenAt).toBe(T0 + 40_000);
      await store.holdBrowsers({ instanceId: 'ins_a', browserIds: [], now: T0 + 200_000 });
      expect(await store.reapStaleBrowsers({ seenBefore: T0 + 150_000, now: T0 + 200_000 })).toEqual([]);
    });
  });
}
