import { describe, expect, it } from 'vitest';
import type { KeyMode } from '../ports/records.js';
import type { AccountStore, ApiKeyStore } from '../ports/store.js';
import { newId } from '../shared/ids.js';
import { hashSecret } from '../shared/secrets.js';
import { type GetStore, seedProject, T0 } from './fixtures.js';

interface KeyInput {
  projectId: string;
  value: string;
  mode?: KeyMode;
  name?: string | null;
  now?: number;
  maxActive?: number;
}

function createKey(store: AccountStore & ApiKeyStore, input: KeyInput) {
  const now = input.now ?? T0;
  return store.createApiKey({
    id: newId('key', now),
    projectId: input.projectId,
    hash: hashSecret(input.value),
    prefix: input.value.slice(0, 12),
    mode: input.mode ?? 'live',
    name: input.name === undefined ? 'server' : input.name,
    now,
    maxActive: input.maxActive ?? 10,
  });
}

/** A distinct well-formed key value per index. */
function keyValue(mode: KeyMode, index: number): string {
  return `sk_${mode}_${String(index).padStart(32, 'K')}`;
}

/** API keys: creation and its limit, revocation, the hash lookup, last-used refreshes. */
export function apiKeyConformance(getStore: GetStore<AccountStore & ApiKeyStore>): void {
  describe('api keys', () => {
    it('creates a key, gets it, lists it and finds it by hash with its project', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const value = keyValue('test', 1);
      const result = await createKey(store, { projectId: project.id, value, mode: 'test', name: null });
      if (result.kind !== 'created') throw new Error(result.kind);
      const key = {
        id: result.key.id,
        projectId: project.id,
        prefix: 'sk_test_KKKK',
        mode: 'test',
        name: null,
        createdAt: T0,
        lastUsedAt: null,
        revokedAt: null,
      };
      expect(result.key).toEqual(key);
      expect(await store.getApiKey(key.id)).toEqual(key);
      expect(await store.getApiKey('key_unknown')).toBeNull();
      expect(await store.listApiKeys(project.id)).toEqual([key]);
      expect(await store.findApiKeyByHash(hashSecret(value))).toEqual({ key, project });
      expect(await store.findApiKeyByHash(hashSecret(keyValue('test', 2)))).toBeNull();
    });

    it('refuses an unknown project', async () => {
      const store = getStore();
      const result = await createKey(store, { projectId: 'proj_unknown', value: keyValue('live', 1) });
      expect(result).toEqual({ kind: 'project-not-found' });
      expect(await store.findApiKeyByHash(hashSecret(keyValue('live', 1)))).toBeNull();
    });

    it('stops at maxActive keys per project; revoked keys do not count', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const other = await seedProject(store);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const result = await createKey(store, {
          projectId: project.id,
          value: keyValue('live', i),
          now: T0 + i,
          maxActive: 3,
        });
        if (result.kind !== 'created') throw new Error(result.kind);
        ids.push(result.key.id);
      }
      const refused = await createKey(store, { projectId: project.id, value: keyValue('live', 3), maxActive: 3 });
      expect(refused).toEqual({ kind: 'limit-reached' });
      expect(await store.findApiKeyByHash(hashSecret(keyValue('live', 3)))).toBeNull();
      const elsewhere = await createKey(store, { projectId: other.id, value: keyValue('live', 9), maxActive: 3 });
      expect(elsewhere.kind).toBe('created');

      await store.revokeApiKey({ id: ids[1]!, now: T0 + 10 });
      const again = await createKey(store, {
        projectId: project.id,
        value: keyValue('live', 3),
        now: T0 + 11,
        maxActive: 3,
      });
      expect(again.kind).toBe('created');
      const full = await createKey(store, { projectId: project.id, value: keyValue('live', 4), maxActive: 3 });
      expect(full).toEqual({ kind: 'limit-reached' });
      expect(await store.listApiKeys(project.id)).toHaveLength(4);
    });

    it('revokes for good: revoking twice keeps the first time; unknown is null', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const value = keyValue('live', 1);
      const result = await createKey(store, { projectId: project.id, value });
      if (result.kind !== 'created') throw new Error(result.kind);
      const revoked = await store.revokeApiKey({ id: result.key.id, now: T0 + 100 });
      expect(revoked).toEqual({ ...result.key, revokedAt: T0 + 100 });
      expect(await store.revokeApiKey({ id: result.key.id, now: T0 + 200 })).toEqual(revoked);
      expect(await store.getApiKey(result.key.id)).toEqual(revoked);
      expect(await store.revokeApiKey({ id: 'key_unknown', now: T0 })).toBeNull();
    });

    it('finds revoked keys by hash too, with revokedAt set', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const value = keyValue('live', 1);
      const result = await createKey(store, { projectId: project.id, value });
      if (result.kind !== 'created') throw new Error(result.kind);
      await store.revokeApiKey({ id: result.key.id, now: T0 + 100 });
      const found = await store.findApiKeyByHash(hashSecret(value));
      expect(found?.key).toEqual({ ...result.key, revokedAt: T0 + 100 });
      expect(found?.project).toEqual(project);
    });

    it('shows the current project state through the key lookup', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const value = keyValue('live', 1);
      await createKey(store, { projectId: project.id, value });
      await store.setProjectSuspended({ id: project.id, suspended: true, now: T0 + 7, reason: 'abuse', actor: 'op' });
      const found = await store.findApiKeyByHash(hashSecret(value));
      expect(found?.project).toEqual({
        ...project,
        suspended: true,
        suspendedAt: T0 + 7,
        suspendedReason: 'abuse',
        suspendedBy: 'op',
      });
    });

    it('refreshes last-used only when unset or at least minIntervalMs old', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const value = keyValue('live', 1);
      const result = await createKey(store, { projectId: project.id, value });
      if (result.kind !== 'created') throw new Error(result.kind);
      const { id } = result.key;
      const lastUsed = async () => (await store.getApiKey(id))?.lastUsedAt;

      await store.touchApiKey({ id, now: T0 + 1000, minIntervalMs: 60_000 });
      expect(await lastUsed()).toBe(T0 + 1000);
      await store.touchApiKey({ id, now: T0 + 30_000, minIntervalMs: 60_000 });
      expect(await lastUsed()).toBe(T0 + 1000);
      await store.touchApiKey({ id, now: T0 + 60_999, minIntervalMs: 60_000 });
      expect(await lastUsed()).toBe(T0 + 1000);
      await store.touchApiKey({ id, now: T0 + 61_000, minIntervalMs: 60_000 });
      expect(await lastUsed()).toBe(T0 + 61_000);
      expect((await store.findApiKeyByHash(hashSecret(value)))?.key.lastUsedAt).toBe(T0 + 61_000);
      await expect(store.touchApiKey({ id: 'key_unknown', now: T0, minIntervalMs: 0 })).resolves.toBeUndefined();
    });
  });
}
