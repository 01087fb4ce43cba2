import { describe, expect, it } from 'vitest';
import type {
  AccountStore,
  ApiKeyStore,
  BrowserStore,
  CreateNotificationResult,
  DeliveryStore,
  MaintenanceStore,
  NotificationStore,
  UsageStore,
} from '../ports/store.js';
import { newId } from '../shared/ids.js';
import { hashSecret } from '../shared/secrets.js';
import { type GetStore, readBack, renderForTest, seedBrowser, seedProject, send, sendCreated, T0 } from './fixtures.js';

/** How many calls each test starts at once: more than a pool's connections, so some wait. */
const N = 24;

/** `count` calls of `call`, all started before any is awaited. */
function all<T>(count: number, call: (index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => call(index)));
}

/**
 * Operations called at once, as several requests (or instances) of one deployment would: the
 * limits and the per-browser sequence must hold under any interleaving, and each sweep must end
 * each row once. A store that serializes everything passes trivially; a network store passes
 * only with the right locks.
 */
export function concurrencyConformance(
  getStore: GetStore<
    AccountStore & ApiKeyStore & BrowserStore & DeliveryStore & MaintenanceStore & NotificationStore & UsageStore
  >,
): void {
  describe('concurrency', () => {
    it('numbers the attempts of one browser 1..N without a gap under concurrent sends', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const first = await seedBrowser(store, project.id, 'user-1');
      const second = await seedBrowser(store, project.id, 'user-1');
      const created = await all(N, (index) =>
        sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 + index }),
      );
      const expected = Array.from({ length: N }, (_, index) => index + 1);
      for (const browser of [first, second]) {
        const seqs = created.map((one) => one.attempts.find((attempt) => attempt.browserId === browser.id)?.seq);
        expect([...seqs].sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(expected);
        // What the browser's stream reads back is the same gapless run, in seq order.
        const deliveries = await store.listDeliveries({ browserId: browser.id, now: T0 });
        expect(deliveries.map((delivery) => delivery.seq)).toEqual(expected);
      }
    });

    it('keeps an account at maxProjects when creations race', async () => {
      const store = getStore();
      const account = await store.createAccount({
        id: newId('acct', T0),
        email: 'a@example.com',
        verified: true,
        now: T0,
      });
      const results = await all(N, (index) =>
        store.createProject({
          id: newId('proj', T0 + index),
          accountId: account.id,
          name: `P${index}`,
          now: T0 + index,
          maxProjects: 10,
        }),
      );
      expect(results.filter((result) => result.kind === 'created')).toHaveLength(10);
      expect(results.filter((result) => result.kind === 'limit-reached')).toHaveLength(N - 10);
      expect(await store.listProjects(account.id)).toHaveLength(10);
    });

    it('keeps a project at maxActive keys when creations race', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const results = await all(N, (index) => {
        const value = `sk_live_${String(index).padStart(32, 'R')}`;
        return store.createApiKey({
          id: newId('key', T0 + index),
          projectId: project.id,
          hash: hashSecret(value),
          prefix: value.slice(0, 12),
          mode: 'live',
          name: null,
          now: T0 + index,
          maxActive: 10,
        });
      });
      expect(results.filter((result) => result.kind === 'created')).toHaveLength(10);
      expect(results.filter((result) => result.kind === 'limit-reached')).toHaveLength(N - 10);
      expect(await store.listApiKeys(project.id)).toHaveLength(10);
    });

    it('lets one of many concurrent sends with one key create, while others with another body mismatch', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await seedBrowser(store, project.id, 'user-1');
      const results = await all(N, (index) =>
        send(store, {
          projectId: project.id,
          recipient: 'user-1',
          idempotencyKey: 'race',
          fingerprint: index % 2 === 0 ? 'fp-a' : 'fp-b',
          now: T0 + index,
        }),
      );
      const created = results.filter((result) => result.kind === 'created');
      expect(created).toHaveLength(1);
      const winner = created[0]!;
      if (winner.kind !== 'created') throw new Error(winner.kind);
      const winnerIndex = results.indexOf(winner);
      results.forEach((result, index) => {
        if (index === winnerIndex) return;
        if (index % 2 === winnerIndex % 2) expect(result).toEqual({ kind: 'replay', response: winner.response });
        else expect(result).toEqual({ kind: 'mismatch' });
      });
    });

    it('gives each of many different sends started at once the outcome it would have alone', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const other = await seedProject(store);
      const [a1, a2] = [await seedBrowser(store, project.id, 'r1'), await seedBrowser(store, project.id, 'r1')];
      const b1 = await seedBrowser(store, project.id, 'r2');
      const c1 = await seedBrowser(store, other.id, 'r1');
      const stored = await sendCreated(store, { projectId: project.id, recipient: 'r1', idempotencyKey: 'k0' });
      const base = { projectId: project.id, recipient: 'r1' };
      const calls: Array<[string, Promise<CreateNotificationResult>]> = [];
      const at = (label: string, call: Promise<CreateNotificationResult>) => calls.push([label, call]);
      for (let i = 0; i < 6; i += 1) at('plain', send(store, { ...base, now: T0 + i }));
      for (let i = 0; i < 3; i += 1) at('test', send(store, { ...base, recipient: 'r2', mode: 'test' }));
      for (let i = 0; i < 2; i += 1) at('nobody', send(store, { ...base, recipient: 'r3' }));
      for (let i = 0; i < 3; i += 1) at('k0', send(store, { ...base, idempotencyKey: 'k0' }));
      for (let i = 0; i < 4; i += 1) at('k1', send(store, { ...base, idempotencyKey: 'k1' }));
      at('k2', send(store, { ...base, idempotencyKey: 'k2', fingerprint: 'fp-a' }));
      at('k2', send(store, { ...base, idempotencyKey: 'k2', fingerprint: 'fp-b' }));
      at('k3', send(store, { ...base, recipient: 'r3', idempotencyKey: 'k3' }));
      at('other', send(store, { ...base, projectId: other.id, idempotencyKey: 'k1' }));
      const results = await Promise.all(calls.map(([, call]) => call));
      const kinds = (label: string) =>
        results
          .filter((_, i) => calls[i]![0] === label)
          .map((result) => result.kind)
          .sort();

      expect(kinds('plain')).toEqual(Array(6).fill('created'));
      expect(kinds('test')).toEqual(Array(3).fill('created'));
      expect(kinds('nobody')).toEqual(['no-connected-browser', 'no-connected-browser']);
      expect(kinds('k1')).toEqual(['created', 'replay', 'replay', 'replay']);
      expect(kinds('k2')).toEqual(['created', 'mismatch']);
      expect(kinds('k3')).toEqual(['no-connected-browser']);
      expect(kinds('other')).toEqual(['created']);
      const replayed = results.filter((_, i) => calls[i]![0] === 'k0');
      for (const result of replayed) {
        expect(result).toEqual({ kind: 'replay', response: renderForTest(stored) });
      }
      const k1 = results.filter((_, i) => calls[i]![0] === 'k1');
      const k1Created = k1.find((result) => result.kind === 'created');
      for (const result of k1.filter((one) => one.kind === 'replay')) {
        expect(result).toEqual({ kind: 'replay', response: k1Created?.kind === 'created' && k1Created.response });
      }

      // Every created send is stored as answered, and each browser's numbers run 1..n.
      const created = results.flatMap((result) => (result.kind === 'created' ? [result.created] : []));
      for (const one of created) {
        expect(await readBack(store, one.notification.projectId, one.notification.id)).toEqual(one);
      }
      const sends = 1 + 6 + 1 + 1; // k0 first, the plain ones, k1, k2
      for (const [browser, count] of [
        [a1!, sends],
        [a2!, sends],
        [b1, 3],
        [c1, 1],
      ] as const) {
        const seqs = [stored, ...created]
          .flatMap((one) => one.attempts)
          .filter((attempt) => attempt.browserId === browser.id)
          .map((attempt) => attempt.seq)
          .sort((x, y) => x - y);
        expect(seqs).toEqual(Array.from({ length: count }, (_, i) => i + 1));
      }
      // Live usage counts the live sends recorded; test mode counts nothing.
      const day = '2026-01-01';
      expect(await store.getUsage({ projectId: project.id, fromDay: day, toDay: day })).toEqual([
        { day, notifications: sends, attempts: sends * 2 },
      ]);
      expect(await store.getUsage({ projectId: other.id, fromDay: day, toDay: day })).toEqual([
        { day, notifications: 1, attempts: 1 },
      ]);
      // The key whose send found no browser was left free: it creates once a browser connects.
      await seedBrowser(store, project.id, 'r3');
      expect((await send(store, { ...base, recipient: 'r3', idempotencyKey: 'k3' })).kind).toBe('created');
    });

    it('leaves no attempt pending on a browser disconnected while sends race it', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const sends = all(N, (index) => send(store, { projectId: project.id, recipient: 'user-1', now: T0 + index }));
      const disconnected = store.disconnectBrowser({
        browserId: browser.id,
        reason: 'browser_disconnected',
        now: T0 + 5,
      });
      const [results, outcome] = await Promise.all([sends, disconnected]);
      if (outcome.kind !== 'disconnected') throw new Error(outcome.kind);
      // Every send either reached the browser before its disconnection, and that attempt failed
      // with it, or found no connected browser after it.
      const created = results.filter((result) => result.kind === 'created');
      const failed = new Set(outcome.failedAttemptIds);
      for (const result of created) {
        const read = await readBack(store, project.id, result.created.notification.id);
        expect(read.attempts).toHaveLength(1);
        expect(read.attempts[0]).toMatchObject({ status: 'failed', final: true, reason: 'browser_disconnected' });
        expect(failed.has(read.attempts[0]!.id)).toBe(true);
      }
      expect(failed.size).toBe(created.length);
      expect(results.length - created.length).toBe(
        results.filter((result) => result.kind === 'no-connected-browser').length,
      );
      expect(await store.listDeliveries({ browserId: browser.id, now: T0 })).toEqual([]);
    });

    it('reaps each stale browser once when sweeps run at once', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browsers = await all(12, (index) => seedBrowser(store, project.id, `user-${index}`, T0));
      await all(12, (index) => sendCreated(store, { projectId: project.id, recipient: `user-${index}`, now: T0 + 1 }));
      const sweeps = await all(4, () => store.reapStaleBrowsers({ seenBefore: T0 + 10, now: T0 + 20 }));
      const reaped = sweeps.flat();
      expect(reaped.map((entry) => entry.browserId).sort()).toEqual(browsers.map((browser) => browser.id).sort());
      // Each browser's one pending attempt failed with it, and with no other.
      for (const entry of reaped) expect(entry.failedAttemptIds).toHaveLength(1);
      expect(new Set(reaped.flatMap((entry) => entry.failedAttemptIds)).size).toBe(browsers.length);
      for (const browser of browsers) {
        expect(await store.listDeliveries({ browserId: browser.id, now: T0 })).toEqual([]);
      }
    });

    it('expires each attempt once when sweeps run at once', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await seedBrowser(store, project.id, 'user-1');
      await seedBrowser(store, project.id, 'user-1');
      const created = await all(10, (index) =>
        sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 + index, ttl: 60 }),
      );
      const sweeps = await all(4, () => store.expireAttempts({ now: T0 + 120_000 }));
      const ended = sweeps.flat().map((one) => one.attemptId);
      const expected = created.flatMap((one) => one.attempts.map((attempt) => attempt.id));
      expect(ended.sort()).toEqual(expected.sort());
    });

    it('ends a delivered attempt delivered when the record of sending races the receipt', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const created = await all(N, (index) =>
        sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 + index }),
      );
      const attemptIds = created.map((one) => one.attempts[0]!.id);
      await Promise.all([
        ...attemptIds.map((attemptId) =>
          store.applyReceipts({
            browserId: browser.id,
            receipts: [{ type: 'delivered', attemptId, at: T0 + 100 }],
            now: T0 + 100,
          }),
        ),
        store.markAttemptsSent({ attemptIds, now: T0 + 50, via: 'stream' }),
        store.markAttemptsSent({ attemptIds: [...attemptIds].reverse(), now: T0 + 60, via: 'stream' }),
      ]);
      for (const one of created) {
        const read = await readBack(store, project.id, one.notification.id);
        expect(read.attempts[0]).toMatchObject({ status: 'delivered', final: true, deliveredAt: T0 + 100 });
        expect(read.attempts[0]!.sentAt).not.toBeNull();
      }
    });
  });
}
