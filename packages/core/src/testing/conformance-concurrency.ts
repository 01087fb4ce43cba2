import { describe, expect, it } from 'vitest';
import { newId } from '../ids.js';
import { hashSecret } from '../secrets.js';
import { type GetStore, readBack, seedBrowser, seedProject, send, sendCreated, T0 } from './fixtures.js';

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
export function concurrencyConformance(getStore: GetStore): void {
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
        store.markAttemptsSent({ attemptIds, now: T0 + 50 }),
        store.markAttemptsSent({ attemptIds: [...attemptIds].reverse(), now: T0 + 60 }),
      ]);
      for (const one of created) {
        const read = await readBack(store, project.id, one.notification.id);
        expect(read.attempts[0]).toMatchObject({ status: 'delivered', final: true, deliveredAt: T0 + 100 });
        expect(read.attempts[0]!.sentAt).not.toBeNull();
      }
    });
  });
}
