import { describe, expect, it } from 'vitest';
import type { Store } from '../ports/store.js';
import { DAY_MS, type GetStore, seedBrowser, seedProject, send, T0 } from './fixtures.js';

const LOCK_MS = 60_000;

function claim(store: Store, projectId: string, key: string, fingerprint: string, now = T0) {
  return store.claimIdempotencyKey({
    projectId,
    key,
    fingerprint,
    now,
    expiresAt: now + DAY_MS,
    lockExpiresAt: now + LOCK_MS,
  });
}

/** Idempotency keys: claim, in-progress, replay, mismatch, take-overs, release, project scope. */
export function idempotencyConformance(getStore: GetStore): void {
  describe('idempotency keys', () => {
    it('claims a new key, then answers in-progress while the claim is locked', async () => {
      const store = getStore();
      const project = await seedProject(store);
      expect(await claim(store, project.id, 'k1', 'fp-a')).toEqual({ kind: 'claimed' });
      expect(await claim(store, project.id, 'k1', 'fp-a', T0 + 1)).toEqual({ kind: 'in-progress' });
      expect(await claim(store, project.id, 'k1', 'fp-a', T0 + LOCK_MS - 1)).toEqual({ kind: 'in-progress' });
      expect(await claim(store, project.id, 'k2', 'fp-a', T0 + 1)).toEqual({ kind: 'claimed' });
    });

    it('replays the stored response once createNotification completed the key; mismatch otherwise', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await seedBrowser(store, project.id, 'user-1');
      expect(await claim(store, project.id, 'k1', 'fp-a')).toEqual({ kind: 'claimed' });
      const result = await send(store, { projectId: project.id, recipient: 'user-1', idempotencyKey: 'k1' });
      if (result.kind !== 'created') throw new Error(result.kind);
      expect(result.response.status).toBe(201);
      expect(JSON.parse(result.response.body)).toEqual({
        id: result.created.notification.id,
        attempts: result.created.attempts.map((attempt) => attempt.id),
      });
      const replay = { kind: 'replay', status: 201, body: result.response.body };
      expect(await claim(store, project.id, 'k1', 'fp-a', T0 + 1)).toEqual(replay);
      // Completed records replay even after the lock time: the lock only guards running claims.
      expect(await claim(store, project.id, 'k1', 'fp-a', T0 + LOCK_MS * 10)).toEqual(replay);
      expect(await claim(store, project.id, 'k1', 'fp-b', T0 + 2)).toEqual({ kind: 'mismatch' });
    });

    it('takes over a claim whose lock has passed', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await claim(store, project.id, 'k1', 'fp-a');
      const later = T0 + LOCK_MS + 1;
      expect(await claim(store, project.id, 'k1', 'fp-a', later)).toEqual({ kind: 'claimed' });
      // The take-over holds a fresh lock of its own.
      expect(await claim(store, project.id, 'k1', 'fp-a', later + 1)).toEqual({ kind: 'in-progress' });
    });

    it('takes over a completed record past its expiry, with any fingerprint', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await seedBrowser(store, project.id, 'user-1');
      await claim(store, project.id, 'k1', 'fp-a');
      await send(store, { projectId: project.id, recipient: 'user-1', idempotencyKey: 'k1' });
      const later = T0 + DAY_MS + 1;
      expect(await claim(store, project.id, 'k1', 'fp-b', later)).toEqual({ kind: 'claimed' });
      expect(await claim(store, project.id, 'k1', 'fp-b', later + 1)).toEqual({ kind: 'in-progress' });
    });

    it('frees a released key so that the client can retry, with another body too', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await claim(store, project.id, 'k1', 'fp-a');
      await store.releaseIdempotencyKey({ projectId: project.id, key: 'k1' });
      expect(await claim(store, project.id, 'k1', 'fp-b', T0 + 1)).toEqual({ kind: 'claimed' });
      await expect(store.releaseIdempotencyKey({ projectId: project.id, key: 'never-used' })).resolves.toBeUndefined();
    });

    it('leaves the claim running when nothing was created, and never releases a completed record', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await claim(store, project.id, 'k1', 'fp-a');
      const refused = await send(store, { projectId: project.id, recipient: 'nobody', idempotencyKey: 'k1' });
      expect(refused).toEqual({ kind: 'no-connected-browser' });
      expect(await claim(store, project.id, 'k1', 'fp-a', T0 + 1)).toEqual({ kind: 'in-progress' });

      await seedBrowser(store, project.id, 'user-1');
      await claim(store, project.id, 'k2', 'fp-a');
      const result = await send(store, { projectId: project.id, recipient: 'user-1', idempotencyKey: 'k2' });
      if (result.kind !== 'created') throw new Error(result.kind);
      await store.releaseIdempotencyKey({ projectId: project.id, key: 'k2' });
      expect(await claim(store, project.id, 'k2', 'fp-a', T0 + 1)).toEqual({
        kind: 'replay',
        status: 201,
        body: result.response.body,
      });
    });

    it('scopes keys to their project', async () => {
      const store = getStore();
      const first = await seedProject(store);
      const second = await seedProject(store);
      await seedBrowser(store, first.id, 'user-1');
      await claim(store, first.id, 'shared', 'fp-a');
      await send(store, { projectId: first.id, recipient: 'user-1', idempotencyKey: 'shared' });
      expect(await claim(store, second.id, 'shared', 'fp-b', T0 + 1)).toEqual({ kind: 'claimed' });
      await store.releaseIdempotencyKey({ projectId: second.id, key: 'shared' });
      expect((await claim(store, first.id, 'shared', 'fp-a', T0 + 2)).kind).toBe('replay');
    });
  });
}
