import { describe, expect, it } from 'vitest';
import type { AttemptRecord, Receipt } from '../ports/records.js';
import type { AccountStore, BrowserStore, DeliveryStore, NotificationStore, PushStore } from '../ports/store.js';
import { type GetStore, readBack, seedBrowser, seedProject, sendCreated, T0 } from './fixtures.js';

/**
 * The pairs of an attempt's times that keep the order of its life: sending, then delivery, then
 * what the browser did with it (a click or a dismissal needs no display: a page may show it itself).
 */
const ORDERED_PAIRS = [
  ['sentAt', 'deliveredAt'],
  ['sentAt', 'displayedAt'],
  ['sentAt', 'clickedAt'],
  ['sentAt', 'dismissedAt'],
  ['deliveredAt', 'displayedAt'],
  ['deliveredAt', 'clickedAt'],
  ['deliveredAt', 'dismissedAt'],
] as const;

/** Each pair of its times that is out of order, as text (none when the attempt is in order). */
function outOfOrder(attempt: AttemptRecord): string[] {
  const found: string[] = [];
  for (const [earlier, later] of ORDERED_PAIRS) {
    const [a, b] = [attempt[earlier], attempt[later]];
    if (a !== null && b !== null && a > b) found.push(`${earlier} T0+${a - T0} after ${later} T0+${b - T0}`);
  }
  return found;
}

/** Every order of `items`. */
function orders<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, index) =>
    orders([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
  );
}

type Arrival = 'sent' | 'delivered' | 'displayed';

/** When each happened, by the clock that stamped it (the server's for sending, the browser's for receipts). */
interface Times {
  sent: number;
  delivered: number;
  displayed: number;
}

type Roles = AccountStore & BrowserStore & DeliveryStore & NotificationStore & PushStore;

/** A new live attempt of the browser, and a way to read it back as it stands. */
async function newAttempt(store: Roles, projectId: string): Promise<{ id: string; read(): Promise<AttemptRecord> }> {
  const created = await sendCreated(store, { projectId, recipient: 'user-1', now: T0 + 1 });
  return {
    id: created.attempts[0]!.id,
    read: async () => (await readBack(store, projectId, created.notification.id)).attempts[0]!,
  };
}

/** The stream's batched record that it wrote the attempt at `at`, landing later. */
function recordSent(store: Roles, attemptId: string, at: number): Promise<void> {
  return store.markAttemptsSent({ attemptIds: [attemptId], now: T0 + 50, via: 'stream', sentAts: [at] });
}

/**
 * An attempt's times keep the order of its life, `sentAt ≤ deliveredAt ≤ displayedAt` (and
 * neither sending nor delivery after a click or dismissal), whatever order the record of sending
 * and the receipts arrive in and whatever the clocks that stamped them say: the record of sending
 * is written in batches after the event, receipts of one browser may reach another instance
 * first, and a browser's clock may run behind the server's. A receipt's time proves the browser
 * had the attempt by then, so an earlier stage's time yields to a later stage's.
 */
export function attemptTimesConformance(getStore: GetStore<Roles>): void {
  describe('attempt times', () => {
    const timings: Record<string, Times> = {
      'in order': { sent: T0 + 5, delivered: T0 + 10, displayed: T0 + 15 },
      'sending stamped after the delivery': { sent: T0 + 30, delivered: T0 + 12, displayed: T0 + 40 },
      'displayed before delivered': { sent: T0 + 5, delivered: T0 + 25, displayed: T0 + 15 },
      'every clock disagreeing': { sent: T0 + 30, delivered: T0 + 20, displayed: T0 + 10 },
    };

    it('keeps sentAt ≤ deliveredAt ≤ displayedAt for every order of arrival, after each step', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      for (const [timing, times] of Object.entries(timings)) {
        for (const order of orders<Arrival>(['sent', 'delivered', 'displayed'])) {
          const attempt = await newAttempt(store, project.id);
          const what = `${timing}, arriving ${order.join(' → ')}`;
          for (const [step, arrival] of order.entries()) {
            if (arrival === 'sent') await recordSent(store, attempt.id, times.sent);
            else {
              const receipts: Receipt[] = [{ type: arrival, attemptId: attempt.id, at: times[arrival] }];
              await store.applyReceipts({ browserId: browser.id, receipts, now: T0 + 50 });
            }
            expect(outOfOrder(await attempt.read()), `${what}, after ${order.slice(0, step + 1).join(' → ')}`).toEqual(
              [],
            );
          }
          const sentFirst = order.indexOf('sent') < order.indexOf('delivered');
          const deliveredAt = Math.min(times.delivered, times.displayed);
          expect(await attempt.read(), what).toMatchObject({
            status: 'delivered',
            // A receipt's time is kept; a sending or delivery time after it yields to it.
            displayedAt: times.displayed,
            deliveredAt,
            // A record of sending that arrives after the delivery changes nothing.
            sentAt: sentFirst ? Math.min(times.sent, deliveredAt) : deliveredAt,
            sentVia: sentFirst ? 'stream' : null,
          });
        }
      }
    });

    it('keeps the order when both receipts come in one batch, in either order', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      for (const [timing, times] of Object.entries(timings)) {
        for (const order of orders<'delivered' | 'displayed'>(['delivered', 'displayed'])) {
          const attempt = await newAttempt(store, project.id);
          await recordSent(store, attempt.id, times.sent);
          const receipts = order.map((type): Receipt => ({ type, attemptId: attempt.id, at: times[type] }));
          await store.applyReceipts({ browserId: browser.id, receipts, now: T0 + 50 });
          const deliveredAt = Math.min(times.delivered, times.displayed);
          expect(await attempt.read(), `${timing}, ${order.join(' then ')}`).toMatchObject({
            status: 'delivered',
            sentAt: Math.min(times.sent, deliveredAt),
            deliveredAt,
            displayedAt: times.displayed,
          });
        }
      }
    });

    it('never leaves sending or delivery after a click or a dismissal', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      for (const type of ['clicked', 'dismissed'] as const) {
        const attempt = await newAttempt(store, project.id);
        const receipt = (kind: Receipt['type'], at: number): Receipt => ({ type: kind, attemptId: attempt.id, at });
        await store.applyReceipts({ browserId: browser.id, receipts: [receipt(type, T0 + 8)], now: T0 + 8 });
        // A poll answered after the click was reported (the browser had it from another path).
        await store.markAttemptsSent({ attemptIds: [attempt.id], now: T0 + 20, via: 'poll' });
        expect(await attempt.read(), type).toMatchObject({ status: 'sent', sentAt: T0 + 8, sentVia: 'poll' });
        await store.applyReceipts({ browserId: browser.id, receipts: [receipt('delivered', T0 + 12)], now: T0 + 20 });
        const delivered = await attempt.read();
        expect(delivered, type).toMatchObject({ status: 'delivered', sentAt: T0 + 8, deliveredAt: T0 + 8 });
        expect(outOfOrder(delivered), type).toEqual([]);
      }
    });

    it('never records a push as sent after the receipts that came before the push service’s answer', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const attempt = await newAttempt(store, project.id);
      // The service worker showed it before the push service answered the push's request.
      const displayed: Receipt = { type: 'displayed', attemptId: attempt.id, at: T0 + 6 };
      await store.applyReceipts({ browserId: browser.id, receipts: [displayed], now: T0 + 6 });
      await store.markAttemptPushed({ attemptId: attempt.id, now: T0 + 9 });
      expect(await attempt.read()).toMatchObject({
        status: 'sent',
        sentVia: 'push',
        sentAt: T0 + 6,
        pushAcceptedAt: T0 + 9,
      });
      const delivered: Receipt = { type: 'delivered', attemptId: attempt.id, at: T0 + 7 };
      await store.applyReceipts({ browserId: browser.id, receipts: [delivered], now: T0 + 9 });
      expect(await attempt.read()).toMatchObject({
        status: 'delivered',
        sentAt: T0 + 6,
        deliveredAt: T0 + 6,
        displayedAt: T0 + 6,
      });
    });
  });
}
