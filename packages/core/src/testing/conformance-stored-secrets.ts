import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../ports/store/accounts.js';
import type { StoredSecret, StoredSecretStore } from '../ports/store/stored-secrets.js';
import type { PushStore } from '../push/store.js';
import { newId } from '../shared/ids.js';
import { generateSecretKey, parseSecretKeys } from '../shared/sealing/keyring.js';
import { createSecretSealer, isSealed } from '../shared/sealing/sealer.js';
import { placeOf, resealStoredSecrets, surveyStoredSecrets } from '../shared/sealing/stored-secrets.js';
import type { WebhookEndpointStore } from '../webhooks/endpoint-store.js';
import { type GetStore, seedProject, T0 } from './fixtures.js';

type Roles = AccountStore & WebhookEndpointStore & PushStore & StoredSecretStore;

async function endpoint(store: Roles, projectId: string, secret: string, now = T0) {
  const result = await store.createWebhookEndpoint({
    id: newId('whe', now),
    projectId,
    url: 'https://example.com/hooks',
    description: null,
    events: ['notification.completed'],
    secret,
    now,
    maxEndpoints: 10,
  });
  if (result.kind !== 'created') throw new Error(result.kind);
  return result.endpoint;
}

async function listAll(store: StoredSecretStore, limit: number): Promise<StoredSecret[]> {
  const all: StoredSecret[] = [];
  let after: { table: StoredSecret['table']; id: string } | null = null;
  for (;;) {
    const page = await store.listStoredSecrets({ after, limit });
    if (page.length === 0) return all;
    all.push(...page);
    const last = page[page.length - 1]!;
    after = { table: last.table, id: last.id };
  }
}

/** The stored secrets: listed page by page across tables, and replaced only while unchanged. */
export function storedSecretConformance(getStore: GetStore<Roles>): void {
  describe('stored secrets', () => {
    it('lists every stored secret once, in pages of rows, with its row and project', async () => {
      const store = getStore();
      const project = await seedProject(store);
      await store.ensureVapidKeys({ publicKey: 'pub', privateKey: 'vapid-private', now: T0 });
      const ids: string[] = [];
      for (let n = 0; n < 5; n++) ids.push((await endpoint(store, project.id, `whsec_${n}`, T0 + n)).id);
      await store.rollWebhookSecret({ id: ids[2]!, secret: 'whsec_rolled', previousExpiresAt: T0 + 9, now: T0 + 9 });

      for (const limit of [1, 2, 100]) {
        const all = await listAll(store, limit);
        expect(all.map((secret) => [secret.table, secret.id, secret.column, secret.value])).toEqual([
          ['vapid_keys', '1', 'private_key', 'vapid-private'],
          ['webhook_endpoints', ids[0], 'secret', 'whsec_0'],
          ['webhook_endpoints', ids[1], 'secret', 'whsec_1'],
          ['webhook_endpoints', ids[2], 'secret', 'whsec_rolled'],
          ['webhook_endpoints', ids[2], 'previous_secret', 'whsec_2'],
          ['webhook_endpoints', ids[3], 'secret', 'whsec_3'],
          ['webhook_endpoints', ids[4], 'secret', 'whsec_4'],
        ]);
        expect(
          all.filter((secret) => secret.table === 'webhook_endpoints').every((s) => s.projectId === project.id),
        ).toBe(true);
        expect(all[0]!.projectId).toBeNull();
      }
    });

    it('lists nothing on an empty store', async () => {
      expect(await getStore().listStoredSecrets({ after: null, limit: 10 })).toEqual([]);
    });

    it('replaces a secret only while it holds the value read', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const created = await endpoint(store, project.id, 'whsec_a');
      await store.ensureVapidKeys({ publicKey: 'pub', privateKey: 'priv-a', now: T0 });
      const replace = { table: 'webhook_endpoints', id: created.id, column: 'secret' } as const;
      expect(await store.replaceStoredSecret({ ...replace, expected: 'whsec_other', value: 'x' })).toBe(false);
      expect(await store.replaceStoredSecret({ ...replace, expected: 'whsec_a', value: 'whsec_b' })).toBe(true);
      expect((await store.getWebhookEndpoint(created.id))?.secret).toBe('whsec_b');
      const previous = { table: 'webhook_endpoints', id: created.id, column: 'previous_secret' } as const;
      expect(await store.replaceStoredSecret({ ...previous, expected: 'whsec_a', value: 'y' })).toBe(false);
      const vapid = { table: 'vapid_keys', id: '1', column: 'private_key' } as const;
      expect(await store.replaceStoredSecret({ ...vapid, expected: 'priv-a', value: 'priv-b' })).toBe(true);
      expect((await store.getVapidKeys())?.privateKey).toBe('priv-b');
      expect((await store.getVapidKeys())?.publicKey).toBe('pub');
    });

    it('holds sealed values as given: sealed, re-sealed under a new key, and every one opens', async () => {
      const store = getStore();
      const project = await seedProject(store);
      for (let n = 0; n < 3; n++) await endpoint(store, project.id, `whsec_${n}`, T0 + n);
      await store.ensureVapidKeys({ publicKey: 'pub', privateKey: 'vapid-private', now: T0 });
      const [oldKey, newKey] = [generateSecretKey(), generateSecretKey()];
      const first = createSecretSealer(parseSecretKeys([oldKey], 'key'));
      expect(await resealStoredSecrets(store, first, { which: 'clear', batchSize: 2 })).toEqual({
        resealed: 4,
        changedMeanwhile: 0,
      });
      const second = createSecretSealer(parseSecretKeys([newKey, oldKey], 'keys'));
      expect((await surveyStoredSecrets(store, second)).older).toEqual({ [first.sealingKeyId!]: 4 });
      await resealStoredSecrets(store, second, { which: 'not-current', batchSize: 1 });
      const onlyNew = createSecretSealer(parseSecretKeys([newKey], 'key'));
      const all = await listAll(store, 10);
      expect(all.every((secret) => isSealed(secret.value))).toBe(true);
      expect(all.map((secret) => onlyNew.open(secret.value, placeOf(secret)))).toEqual([
        { kind: 'opened', value: 'vapid-private', keyId: onlyNew.sealingKeyId },
        { kind: 'opened', value: 'whsec_0', keyId: onlyNew.sealingKeyId },
        { kind: 'opened', value: 'whsec_1', keyId: onlyNew.sealingKeyId },
        { kind: 'opened', value: 'whsec_2', keyId: onlyNew.sealingKeyId },
      ]);
    });
  });
}
