import { describe, expect, it } from 'vitest';
import type { AccountStore, BrowserStore, DeliveryStore, IdempotencyStore, NotificationStore } from '../ports/store.js';
import { type GetStore, seedBrowser, seedProject, send, T0 } from './fixtures.js';

function find(
  store: AccountStore & BrowserStore & DeliveryStore & IdempotencyStore & NotificationStore,
  projectId: string,
  key: string,
  fingerprint: string,
  now = T0,
) {
  return store.findIdempotentResponse({ projectId, key, fingerprint, now });
}

/**
 * Idempotency keys: a result is recorded in the send's own transaction and only then; replay,
 * mismatch, expiry, project scope, and one winner among concurrent sends with one key.
 */
export function idempotencyConformance(
  getStore: GetStore<AccountStore & BrowserStore & DeliveryStore & IdempotencyStore & NotificationStore>,
): void {
  describe('idempotency keys', () => {
    it('finds nothing under a key no send recorded', async () => {
      const store = getStore();
      const project = await seedProject(store);
      expect(await find(store, project.id, 'k1', 'fp-a')).toEqual({ kind: 'none' });
    });

    it('records the result with the send; the same fingerprint replays it, another mismatches', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await seedBrowser(store, project.id, 'user-1');
      const result = await send(store, { projectId: project.id, recipient: 'user-1', idempotencyKey: 'k1' });
      if (result.kind !== 'created') throw new Error(result.kind);
      expect(result.response.status).toBe(201);
      expect(JSON.parse(result.response.body)).toEqual({
        id: result.created.notification.id,
        attempts: result.created.attempts.map((attempt) => attempt.id),
      });
      expect(await find(store, project.id, 'k1', 'fp-a', T0 + 1)).toEqual({
        kind: 'replay',
        status: 201,
        body: result.response.body,
      });
      expect(await find(store, project.id, 'k1', 'fp-b', T0 + 1)).toEqual({ kind: 'mismatch' });
    });

    it('answers a second send with the key from its transaction: replay or mismatch, nothing written', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const first = await send(store, { projectId: project.id, recipient: 'user-1', idempotencyKey: 'k1' });
      if (first.kind !== 'created') throw new Error(first.kind);

      const again = await send(store, {
        projectId: project.id,
        recipient: 'user-1',
        idempotencyKey: 'k1',
        now: T0 + 5,
      });
      expect(again).toEqual({ kind: 'replay', response: first.response });
      const other = await send(store, {
        projectId: project.id,
        recipient: 'user-1',
        idempotencyKey: 'k1',
        fingerprint: 'fp-b',
        now: T0 + 6,
      });
      expect(other).toEqual({ kind: 'mismatch' });
      // Neither wrote an attempt: the browser still has the first send's only.
      const pending = await store.listDeliveries({ browserId: browser.id, now: T0 + 7 });
      expect(pending.map((delivery) => delivery.attemptId)).toEqual([first.created.attempts[0]?.id]);
    });

    it('frees the key once its result expired, for any fingerprint', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await seedBrowser(store, project.id, 'user-1');
      await send(store, {
        projectId: project.id,
        recipient: 'user-1',
        idempotencyKey: 'k1',
        idempotencyExpiresAt: T0 + 100,
      });
      expect((await find(store, project.id, 'k1', 'fp-a', T0 + 99)).kind).toBe('replay');
      expect(await find(store, project.id, 'k1', 'fp-b', T0 + 100)).toEqual({ kind: 'none' });
      const later = await send(store, {
        projectId: project.id,
        recipient: 'user-1',
        idempotencyKey: 'k1',
        fingerprint: 'fp-b',
        now: T0 + 100,
      });
      if (later.kind !== 'created') throw new Error(later.kind);
      expect(await find(store, project.id, 'k1', 'fp-b', T0 + 101)).toEqual({
        kind: 'replay',
        status: 201,
        body: later.response.body,
      });
    });

    it('records nothing for a send refused for want of a connected browser', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const refused = await send(store, { projectId: project.id, recipient: 'nobody', idempotencyKey: 'k1' });
      expect(refused).toEqual({ kind: 'no-connected-browser' });
      expect(await find(store, project.id, 'k1', 'fp-a', T0 + 1)).toEqual({ kind: 'none' });
      // The client may fix the request and retry with the same key, another body too.
      await seedBrowser(store, project.id, 'user-1');
      const retried = await send(store, {
        projectId: project.id,
        recipient: 'user-1',
        idempotencyKey: 'k1',
        fingerprint: 'fp-b',
        now: T0 + 2,
      });
      expect(retried.kind).toBe('created');
    });

    it('scopes keys to their project', async () => {
      const store = getStore();
      const first = await seedProject(store);
      const second = await seedProject(store);
      await seedBrowser(store, first.id, 'user-1');
      await seedBrowser(store, second.id, 'user-1');
      await send(store, { projectId: first.id, recipient: 'user-1', idempotencyKey: 'shared' });
      expect(await find(store, second.id, 'shared', 'fp-b', T0 + 1)).toEqual({ kind: 'none' });
      const other = await send(store, {
        projectId: second.id,
        recipient: 'user-1',
        idempotencyKey: 'shared',
        fingerprint: 'fp-b',
        now: T0 + 1,
      });
      expect(other.kind).toBe('created');
      expect((await find(store, first.id, 'shared', 'fp-a', T0 + 2)).kind).toBe('replay');
    });

    it('lets exactly one of many concurrent sends with one key create; the others replay its result', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          send(store, { projectId: project.id, recipient: 'user-1', idempotencyKey: 'race', now: T0 + index }),
        ),
      );
      const created = results.filter((result) => result.kind === 'created');
      expect(created).toHaveLength(1);
      const winner = created[0];
      if (winner?.kind !== 'created') throw new Error('no winner');
      for (const result of results) {
        if (result !== winner) expect(result).toEqual({ kind: 'replay', response: winner.response });
      }
      const pending = await store.listDeliveries({ browserId: browser.id, now: T0 + 100 });
      expect(pending).toHaveLength(1);
    });
  });
}
