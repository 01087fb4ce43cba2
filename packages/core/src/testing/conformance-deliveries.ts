import { describe, expect, it } from 'vitest';
import type { AttemptRecord, BrowserRecord } from '../ports/records.js';
import type { AccountStore, BrowserStore, DeliveryStore, MaintenanceStore, NotificationStore } from '../ports/store.js';
import { type GetStore, readBack, seedBrowser, seedProject, sendCreated, T0 } from './fixtures.js';

/** Sends one live notification to a recipient and returns the attempt of the given browser. */
async function attemptFor(
  store: AccountStore & BrowserStore & DeliveryStore & MaintenanceStore & NotificationStore,
  projectId: string,
  browser: BrowserRecord,
  now = T0,
): Promise<AttemptRecord> {
  const created = await sendCreated(store, { projectId, recipient: browser.recipient, now });
  const attempt = created.attempts.find((candidate) => candidate.browserId === browser.id);
  if (!attempt) throw new Error('no attempt for the browser');
  return attempt;
}

async function reread(
  store: AccountStore & BrowserStore & DeliveryStore & MaintenanceStore & NotificationStore,
  projectId: string,
  attempt: AttemptRecord,
): Promise<AttemptRecord> {
  const read = await readBack(store, projectId, attempt.notificationId);
  const found = read.attempts.find((candidate) => candidate.id === attempt.id);
  if (!found) throw new Error(`attempt ${attempt.id} not found`);
  return found;
}

/** What a browser's stream receives, how attempts move to sent, and receipts. */
export function deliveryConformance(
  getStore: GetStore<AccountStore & BrowserStore & DeliveryStore & MaintenanceStore & NotificationStore>,
): void {
  describe('deliveries', () => {
    it('records the path an attempt went out by with its sending, and none when a receipt came first', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const streamed = await attemptFor(store, project.id, browser, T0 + 1);
      const polled = await attemptFor(store, project.id, browser, T0 + 2);
      const early = await attemptFor(store, project.id, browser, T0 + 3);
      expect(streamed.sentVia).toBeNull();
      await store.markAttemptsSent({ attemptIds: [streamed.id], now: T0 + 4, via: 'stream' });
      await store.markAttemptsSent({ attemptIds: [polled.id], now: T0 + 5, via: 'poll' });
      await store.applyReceipts({
        browserId: browser.id,
        receipts: [{ type: 'delivered', attemptId: early.id, at: T0 + 6 }],
        now: T0 + 6,
      });
      // Sending again (a resumed stream) moves nothing that is no longer accepted.
      await store.markAttemptsSent({ attemptIds: [polled.id, early.id], now: T0 + 7, via: 'stream' });
      expect(await reread(store, project.id, streamed)).toMatchObject({
        status: 'sent',
        sentAt: T0 + 4,
        sentVia: 'stream',
      });
      expect(await reread(store, project.id, polled)).toMatchObject({
        status: 'sent',
        sentAt: T0 + 5,
        sentVia: 'poll',
      });
      expect(await reread(store, project.id, early)).toMatchObject({
        status: 'delivered',
        sentAt: T0 + 6,
        sentVia: null,
      });
    });

    it('lists the browser’s attempts that are not final and not expired, in seq order', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const other = await seedBrowser(store, project.id, 'user-2');
      const first = await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 + 1, ttl: 60 });
      await sendCreated(store, { projectId: project.id, recipient: 'user-1', mode: 'test', now: T0 + 2 });
      const third = await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 + 3, ttl: 120 });
      const delivered = await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 + 4 });
      await sendCreated(store, { projectId: project.id, recipient: 'user-2', now: T0 + 5 });
      await store.applyReceipts({
        browserId: browser.id,
        receipts: [{ type: 'delivered', attemptId: delivered.attempts[0]!.id, at: T0 + 6 }],
        now: T0 + 6,
      });
      await store.markAttemptsSent({ attemptIds: [third.attempts[0]!.id], now: T0 + 7, via: 'stream' });

      const deliveries = await store.listDeliveries({ browserId: browser.id, now: T0 + 10 });
      expect(deliveries.map((delivery) => delivery.attemptId)).toEqual([first.attempts[0]!.id, third.attempts[0]!.id]);
      const n = first.notification;
      expect(deliveries[0]).toEqual({
        attemptId: first.attempts[0]!.id,
        browserId: browser.id,
        seq: first.attempts[0]!.seq,
        notificationId: n.id,
        title: n.title,
        body: n.body,
        url: n.url,
        icon: n.icon,
        tag: n.tag,
        data: n.data,
        createdAt: n.createdAt,
        expiresAt: n.expiresAt,
        // Sent again after a reconnect: the list of the browser is read again then anyway.
        inboxVersion: null,
      });
      expect(deliveries[0]!.seq).toBeLessThan(deliveries[1]!.seq);
      expect((await store.listDeliveries({ browserId: other.id, now: T0 + 10 })).map((d) => d.browserId)).toEqual([
        other.id,
      ]);
      const beforeExpiry = await store.listDeliveries({ browserId: browser.id, now: first.notification.expiresAt - 1 });
      expect(beforeExpiry).toHaveLength(2);
      const atExpiry = await store.listDeliveries({ browserId: browser.id, now: first.notification.expiresAt });
      expect(atExpiry.map((delivery) => delivery.attemptId)).toEqual([third.attempts[0]!.id]);
      expect(await store.listDeliveries({ browserId: 'brw_unknown', now: T0 })).toEqual([]);
    });

    it('lists the pending deliveries of many browsers at once, and which of them are not connected', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const a = await seedBrowser(store, project.id, 'user-a');
      const b = await seedBrowser(store, project.id, 'user-b');
      const idle = await seedBrowser(store, project.id, 'user-idle');
      const gone = await seedBrowser(store, project.id, 'user-gone');
      const a1 = await sendCreated(store, { projectId: project.id, recipient: 'user-a', now: T0 + 1 });
      const b1 = await sendCreated(store, { projectId: project.id, recipient: 'user-b', now: T0 + 2, ttl: 5 });
      await sendCreated(store, { projectId: project.id, recipient: 'user-b', mode: 'test', now: T0 + 3 });
      const a2 = await sendCreated(store, { projectId: project.id, recipient: 'user-a', now: T0 + 4 });
      const b2 = await sendCreated(store, { projectId: project.id, recipient: 'user-b', now: T0 + 5 });
      const goneAttempt = await sendCreated(store, { projectId: project.id, recipient: 'user-gone', now: T0 + 6 });
      await store.disconnectBrowser({ browserId: gone.id, reason: 'browser_disconnected', now: T0 + 7 });
      await store.markAttemptsSent({ attemptIds: [a2.attempts[0]!.id], now: T0 + 8, via: 'stream' });
      await store.applyReceipts({
        browserId: a.id,
        receipts: [{ type: 'delivered', attemptId: a1.attempts[0]!.id, at: T0 + 9 }],
        now: T0 + 9,
      });

      const browserIds = [b.id, a.id, idle.id, gone.id, 'brw_00000000000000000000000000', b.id];
      // At T0 + 10 s, b1 (ttl 5 s) has expired.
      const pending = await store.listPendingDeliveries({ browserIds, now: T0 + 10_000 });
      const byBrowser = (id: string) => pending.deliveries.filter((delivery) => delivery.browserId === id);
      expect(byBrowser(a.id).map((delivery) => delivery.attemptId)).toEqual([a2.attempts[0]!.id]);
      expect(byBrowser(b.id).map((delivery) => delivery.attemptId)).toEqual([b2.attempts[0]!.id]);
      expect(byBrowser(idle.id)).toEqual([]);
      expect(byBrowser(gone.id)).toEqual([]);
      expect(pending.deliveries).toHaveLength(2);
      expect(pending.deliveries[0]!.browserId < pending.deliveries[1]!.browserId).toBe(true);
      expect(pending.deliveries).toEqual(
        [
          ...(await store.listDeliveries({ browserId: a.id, now: T0 + 10_000 })),
          ...(await store.listDeliveries({ browserId: b.id, now: T0 + 10_000 })),
        ].sort((x, y) => (x.browserId < y.browserId ? -1 : 1)),
      );
      expect(pending.disconnectedBrowserIds.sort()).toEqual([gone.id, 'brw_00000000000000000000000000'].sort());
      expect(goneAttempt.attempts).toHaveLength(1);

      // Before b1 expires, a browser's deliveries come in seq order.
      const earlier = await store.listPendingDeliveries({ browserIds: [b.id], now: T0 + 10 });
      expect(earlier.deliveries.map((delivery) => delivery.attemptId)).toEqual([
        b1.attempts[0]!.id,
        b2.attempts[0]!.id,
      ]);
      expect(await store.listPendingDeliveries({ browserIds: [], now: T0 })).toEqual({
        deliveries: [],
        disconnectedBrowserIds: [],
      });

      // After a seq of each browser's own (the smallest for an id given twice): only what lies above it.
      const b3 = await sendCreated(store, { projectId: project.id, recipient: 'user-b', now: T0 + 11 });
      const [b1Seq, b2Seq] = [b1.attempts[0]!.seq, b2.attempts[0]!.seq];
      const above = await store.listPendingDeliveries({
        browserIds: [b.id, gone.id, b.id],
        now: T0 + 12,
        afterSeqs: [b2Seq, 0, b1Seq],
      });
      expect(above.deliveries.map((delivery) => delivery.attemptId)).toEqual([b2.attempts[0]!.id, b3.attempts[0]!.id]);
      expect(above.disconnectedBrowserIds).toEqual([gone.id]);
      const none = await store.listPendingDeliveries({
        browserIds: [b.id],
        now: T0 + 12,
        afterSeqs: [b3.attempts[0]!.seq],
      });
      expect(none.deliveries).toEqual([]);
    });

    it('marks only accepted attempts that are not final as sent', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const accepted = await attemptFor(store, project.id, browser, T0 + 1);
      const delivered = await attemptFor(store, project.id, browser, T0 + 2);
      const test = await sendCreated(store, { projectId: project.id, recipient: 'user-1', mode: 'test', now: T0 + 3 });
      await store.applyReceipts({
        browserId: browser.id,
        receipts: [{ type: 'delivered', attemptId: delivered.id, at: T0 + 4 }],
        now: T0 + 4,
      });
      const ids = [accepted.id, delivered.id, test.attempts[0]!.id, 'att_unknown'];
      await store.markAttemptsSent({ attemptIds: ids, now: T0 + 5, via: 'stream' });
      expect(await reread(store, project.id, accepted)).toMatchObject({ status: 'sent', final: false, sentAt: T0 + 5 });
      // Sending a delivered attempt is a late record: it keeps the time its receipt set.
      expect(await reread(store, project.id, delivered)).toMatchObject({ status: 'delivered', sentAt: T0 + 4 });
      expect(await reread(store, project.id, test.attempts[0]!)).toEqual(test.attempts[0]);
      await store.markAttemptsSent({ attemptIds: [accepted.id], now: T0 + 9, via: 'stream' });
      expect(await reread(store, project.id, accepted)).toMatchObject({ status: 'sent', sentAt: T0 + 5 });
      await expect(store.markAttemptsSent({ attemptIds: [], now: T0, via: 'stream' })).resolves.toBeUndefined();
    });

    it('records each attempt sent at the time given for it, when times are given', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const first = await attemptFor(store, project.id, browser, T0 + 1);
      const second = await attemptFor(store, project.id, browser, T0 + 2);
      // Written at T0 + 3 and T0 + 6, recorded together at T0 + 25.
      await store.markAttemptsSent({
        attemptIds: [second.id, first.id, 'att_unknown'],
        now: T0 + 25,
        via: 'stream',
        sentAts: [T0 + 6, T0 + 3, T0 + 7],
      });
      expect(await reread(store, project.id, first)).toMatchObject({
        status: 'sent',
        sentAt: T0 + 3,
        sentVia: 'stream',
      });
      expect(await reread(store, project.id, second)).toMatchObject({
        status: 'sent',
        sentAt: T0 + 6,
        sentVia: 'stream',
      });
    });
  });

  describe('receipts', () => {
    it('delivers accepted and sent attempts, final, with the receipt time (sentAt filled if unset)', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const accepted = await attemptFor(store, project.id, browser, T0 + 1);
      const sent = await attemptFor(store, project.id, browser, T0 + 2);
      await store.markAttemptsSent({ attemptIds: [sent.id], now: T0 + 3, via: 'stream' });
      const count = await store.applyReceipts({
        browserId: browser.id,
        receipts: [
          { type: 'delivered', attemptId: accepted.id, at: T0 + 4 },
          { type: 'delivered', attemptId: sent.id, at: T0 + 5 },
        ],
        now: T0 + 6,
      });
      expect(count).toEqual({ named: 2, deliveredAttemptIds: [accepted.id, sent.id] });
      expect(await reread(store, project.id, accepted)).toEqual({
        ...accepted,
        status: 'delivered',
        final: true,
        sentAt: T0 + 4,
        deliveredAt: T0 + 4,
      });
      expect(await reread(store, project.id, sent)).toEqual({
        ...sent,
        status: 'delivered',
        final: true,
        sentAt: T0 + 3,
        sentVia: 'stream',
        deliveredAt: T0 + 5,
      });
    });

    it('never leaves sentAt after deliveredAt: a record of sending that landed late yields to the receipt', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const attempt = await attemptFor(store, project.id, browser, T0 + 1);
      // Sending is recorded in batches, after the event was written: here at T0 + 40, while the
      // browser had it at T0 + 12.
      await store.markAttemptsSent({ attemptIds: [attempt.id], now: T0 + 40, via: 'stream' });
      await store.applyReceipts({
        browserId: browser.id,
        receipts: [{ type: 'delivered', attemptId: attempt.id, at: T0 + 12 }],
        now: T0 + 41,
      });
      expect(await reread(store, project.id, attempt)).toMatchObject({
        status: 'delivered',
        sentAt: T0 + 12,
        sentVia: 'stream',
        deliveredAt: T0 + 12,
      });
    });

    it('sets displayed, clicked and dismissed once, never changing the status', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const accepted = await attemptFor(store, project.id, browser, T0 + 1);
      const delivered = await attemptFor(store, project.id, browser, T0 + 2);
      await store.applyReceipts({
        browserId: browser.id,
        receipts: [{ type: 'delivered', attemptId: delivered.id, at: T0 + 3 }],
        now: T0 + 3,
      });
      const engagement = (attemptId: string, at: number) =>
        (['displayed', 'clicked', 'dismissed'] as const).map((type, index) => ({ type, attemptId, at: at + index }));
      const count = await store.applyReceipts({
        browserId: browser.id,
        receipts: [...engagement(accepted.id, T0 + 10), ...engagement(delivered.id, T0 + 20)],
        now: T0 + 30,
      });
      // Engagement receipts never end an attempt.
      expect(count).toEqual({ named: 6, deliveredAttemptIds: [] });
      expect(await reread(store, project.id, accepted)).toEqual({
        ...accepted,
        displayedAt: T0 + 10,
        clickedAt: T0 + 11,
        dismissedAt: T0 + 12,
      });
      expect(await reread(store, project.id, delivered)).toEqual({
        ...delivered,
        status: 'delivered',
        final: true,
        sentAt: T0 + 3,
        deliveredAt: T0 + 3,
        displayedAt: T0 + 20,
        clickedAt: T0 + 21,
        dismissedAt: T0 + 22,
      });
      const again = await store.applyReceipts({
        browserId: browser.id,
        receipts: [...engagement(accepted.id, T0 + 40), { type: 'delivered', attemptId: delivered.id, at: T0 + 43 }],
        now: T0 + 43,
      });
      // A repeated delivered receipt names its attempt but delivers nothing again.
      expect(again).toEqual({ named: 4, deliveredAttemptIds: [] });
      expect(await reread(store, project.id, accepted)).toMatchObject({
        status: 'accepted',
        final: false,
        displayedAt: T0 + 10,
        clickedAt: T0 + 11,
        dismissedAt: T0 + 12,
      });
      expect((await reread(store, project.id, delivered)).deliveredAt).toBe(T0 + 3);
    });

    it('hands out records as values: a read after any change shows it, an earlier read stays as it was', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const created = await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 + 1 });
      const id = created.notification.id;
      const snapshot = (value: unknown) => JSON.parse(JSON.stringify(value));
      const reads = [await readBack(store, project.id, id)];
      const changes = [
        () => store.markAttemptsSent({ attemptIds: [created.attempts[0]!.id], now: T0 + 2, via: 'stream' }),
        () =>
          store.applyReceipts({
            browserId: browser.id,
            receipts: [{ type: 'displayed', attemptId: created.attempts[0]!.id, at: T0 + 3 }],
            now: T0 + 3,
          }),
        () => store.disconnectBrowser({ browserId: browser.id, reason: 'browser_disconnected', now: T0 + 4 }),
      ];
      const expected = [{ status: 'sent', sentAt: T0 + 2 }, { displayedAt: T0 + 3 }, { status: 'failed', final: true }];
      for (const [index, change] of changes.entries()) {
        const before = snapshot(reads.at(-1));
        await change();
        const after = await readBack(store, project.id, id);
        expect(after.attempts[0]).toMatchObject(expected[index]!);
        expect(after).not.toBe(reads.at(-1));
        // What was handed out before the change is unchanged.
        expect(snapshot(reads.at(-1))).toEqual(before);
        reads.push(after);
      }
      // Unchanged, a notification may come back as the same object, but always equal.
      expect(await readBack(store, project.id, id)).toEqual(reads.at(-1));
    });

    it('ignores receipts for attempts of other browsers, and does not count them', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const stranger = await seedBrowser(store, project.id, 'user-2');
      const mine = await attemptFor(store, project.id, browser);
      const theirs = await attemptFor(store, project.id, stranger);
      const count = await store.applyReceipts({
        browserId: browser.id,
        receipts: [
          { type: 'delivered', attemptId: theirs.id, at: T0 + 1 },
          { type: 'clicked', attemptId: theirs.id, at: T0 + 1 },
          { type: 'displayed', attemptId: mine.id, at: T0 + 1 },
          { type: 'delivered', attemptId: 'att_unknown', at: T0 + 1 },
        ],
        now: T0 + 1,
      });
      expect(count).toEqual({ named: 1, deliveredAttemptIds: [] });
      expect(await reread(store, project.id, theirs)).toEqual(theirs);
      expect((await reread(store, project.id, mine)).displayedAt).toBe(T0 + 1);
    });

    it('leaves a failed attempt failed', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const attempt = await attemptFor(store, project.id, browser);
      await store.disconnectBrowser({ browserId: browser.id, reason: 'browser_disconnected', now: T0 + 1 });
      const failed = await reread(store, project.id, attempt);
      const count = await store.applyReceipts({
        browserId: browser.id,
        receipts: [{ type: 'delivered', attemptId: attempt.id, at: T0 + 2 }],
        now: T0 + 2,
      });
      expect(count).toEqual({ named: 1, deliveredAttemptIds: [] });
      expect(await reread(store, project.id, attempt)).toEqual(failed);
      expect(failed).toMatchObject({ status: 'failed', final: true, deliveredAt: null });
    });

    it('is idempotent: the same receipts twice leave the same state', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const attempt = await attemptFor(store, project.id, browser);
      const receipts = [
        { type: 'delivered', attemptId: attempt.id, at: T0 + 1 },
        { type: 'displayed', attemptId: attempt.id, at: T0 + 2 },
      ] as const;
      expect(await store.applyReceipts({ browserId: browser.id, receipts: [...receipts], now: T0 + 2 })).toEqual({
        named: 2,
        deliveredAttemptIds: [attempt.id],
      });
      const once = await reread(store, project.id, attempt);
      expect(await store.applyReceipts({ browserId: browser.id, receipts: [...receipts], now: T0 + 9 })).toEqual({
        named: 2,
        deliveredAttemptIds: [],
      });
      expect(await reread(store, project.id, attempt)).toEqual(once);
      expect(once).toMatchObject({ status: 'delivered', deliveredAt: T0 + 1, displayedAt: T0 + 2 });
    });

    it('reports each ended attempt once when receipts, a disconnect and expiry race', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const attempts = await Promise.all(
        Array.from({ length: 6 }, (_, index) => attemptFor(store, project.id, browser, T0 + index)),
      );
      const ids = attempts.map((attempt) => attempt.id);
      const receipts = ids.map((attemptId) => ({ type: 'delivered' as const, attemptId, at: T0 + 10 }));
      const [first, second, disconnected, expired] = await Promise.all([
        store.applyReceipts({ browserId: browser.id, receipts, now: T0 + 10 }),
        store.applyReceipts({ browserId: browser.id, receipts: [...receipts].reverse(), now: T0 + 10 }),
        store.disconnectBrowser({ browserId: browser.id, reason: 'browser_disconnected', now: T0 + 10 }),
        store.expireAttempts({ now: T0 + 86_400_000 + 10 }),
      ]);
      const ended = [
        ...first.deliveredAttemptIds,
        ...second.deliveredAttemptIds,
        ...(disconnected.kind === 'disconnected' ? disconnected.failedAttemptIds : []),
        ...expired.map((attempt) => attempt.attemptId),
      ];
      expect([...ended].sort()).toEqual([...ids].sort());
    });
  });
}
