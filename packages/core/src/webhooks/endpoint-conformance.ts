import { describe, expect, it } from 'vitest';
import type { AccountStore, ProjectAdminStore, WebhookEndpointStore } from '../ports/store.js';
import { newId } from '../shared/ids.js';
import { type GetStore, seedProject, T0 } from '../testing/fixtures.js';

function createEndpoint(
  store: AccountStore & ProjectAdminStore & WebhookEndpointStore,
  input: { projectId: string; url?: string; now?: number; maxEndpoints?: number; secret?: string },
) {
  const now = input.now ?? T0;
  return store.createWebhookEndpoint({
    id: newId('whe', now),
    projectId: input.projectId,
    url: input.url ?? 'https://example.com/hooks',
    description: 'orders',
    events: ['notification.completed', 'browser.connected'],
    secret: input.secret ?? 'whsec_first',
    now,
    maxEndpoints: input.maxEndpoints ?? 10,
  });
}

/** Webhook endpoints: creation and its limit, updates, status, the secret's roll, deletion. */
export function webhookEndpointConformance(
  getStore: GetStore<AccountStore & ProjectAdminStore & WebhookEndpointStore>,
): void {
  describe('webhook endpoints', () => {
    it('creates an endpoint with its secret, gets it and lists it', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const result = await createEndpoint(store, { projectId: project.id });
      if (result.kind !== 'created') throw new Error(result.kind);
      const endpoint = {
        id: result.endpoint.id,
        projectId: project.id,
        url: 'https://example.com/hooks',
        description: 'orders',
        events: ['notification.completed', 'browser.connected'],
        status: 'enabled',
        disabledReason: null,
        secret: 'whsec_first',
        previousSecret: null,
        previousSecretExpiresAt: null,
        createdAt: T0,
        updatedAt: T0,
        failingSince: null,
      };
      expect(result.endpoint).toEqual(endpoint);
      expect(result.endpoint.id).toMatch(/^whe_/);
      expect(await store.getWebhookEndpoint(endpoint.id)).toEqual(endpoint);
      expect(await store.getWebhookEndpoint('whe_unknown')).toBeNull();
      expect(await store.listWebhookEndpoints(project.id)).toEqual([endpoint]);
      expect(await store.listWebhookEndpoints('proj_unknown')).toEqual([]);
    });

    it('refuses an unknown project and a project at its limit', async () => {
      const store = getStore();
      const project = await seedProject(store);
      expect(await createEndpoint(store, { projectId: 'proj_unknown' })).toEqual({ kind: 'project-not-found' });
      for (let i = 0; i < 2; i++) {
        expect((await createEndpoint(store, { projectId: project.id, maxEndpoints: 2, now: T0 + i })).kind).toBe(
          'created',
        );
      }
      expect(await createEndpoint(store, { projectId: project.id, maxEndpoints: 2 })).toEqual({
        kind: 'limit-reached',
      });
      const results = await Promise.all(
        [0, 1, 2].map((i) => createEndpoint(store, { projectId: project.id, maxEndpoints: 4, now: T0 + 10 + i })),
      );
      expect(results.filter((result) => result.kind === 'created')).toHaveLength(2);
      expect(await store.listWebhookEndpoints(project.id)).toHaveLength(4);
    });

    it('updates only the fields given, sets the status and deletes', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const created = await createEndpoint(store, { projectId: project.id });
      if (created.kind !== 'created') throw new Error(created.kind);
      const id = created.endpoint.id;
      const updated = await store.updateWebhookEndpoint({ id, url: 'https://example.org/x', now: T0 + 1 });
      expect(updated).toMatchObject({
        url: 'https://example.org/x',
        description: 'orders',
        events: ['notification.completed', 'browser.connected'],
        updatedAt: T0 + 1,
      });
      expect(await store.updateWebhookEndpoint({ id, description: null, events: ['*'], now: T0 + 2 })).toMatchObject({
        url: 'https://example.org/x',
        description: null,
        events: ['*'],
        updatedAt: T0 + 2,
      });
      expect(await store.updateWebhookEndpoint({ id: 'whe_unknown', url: 'https://a.b', now: T0 })).toBeNull();

      expect(
        await store.setWebhookEndpointStatus({ id, status: 'disabled', reason: 'operator', now: T0 + 3 }),
      ).toMatchObject({ status: 'disabled', disabledReason: 'operator', updatedAt: T0 + 3 });
      expect(
        await store.setWebhookEndpointStatus({ id, status: 'enabled', reason: 'ignored', now: T0 + 4 }),
      ).toMatchObject({ status: 'enabled', disabledReason: null });
      expect(
        await store.setWebhookEndpointStatus({ id: 'whe_unknown', status: 'enabled', reason: null, now: T0 }),
      ).toBeNull();

      expect(await store.deleteWebhookEndpoint({ id })).toBe(true);
      expect(await store.deleteWebhookEndpoint({ id })).toBe(false);
      expect(await store.getWebhookEndpoint(id)).toBeNull();
    });

    it('rolls the secret, keeping the one replaced until its grace ends', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const created = await createEndpoint(store, { projectId: project.id });
      if (created.kind !== 'created') throw new Error(created.kind);
      const id = created.endpoint.id;
      const rolled = await store.rollWebhookSecret({
        id,
        secret: 'whsec_second',
        previousExpiresAt: T0 + 500,
        now: T0 + 1,
      });
      expect(rolled).toMatchObject({
        secret: 'whsec_second',
        previousSecret: 'whsec_first',
        previousSecretExpiresAt: T0 + 500,
        updatedAt: T0 + 1,
      });
      expect(await store.getWebhookEndpoint(id)).toEqual(rolled);
      expect(
        await store.rollWebhookSecret({ id: 'whe_unknown', secret: 'x', previousExpiresAt: T0, now: T0 }),
      ).toBeNull();
    });

    it('deletes the endpoints with their project', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const created = await createEndpoint(store, { projectId: project.id });
      if (created.kind !== 'created') throw new Error(created.kind);
      expect(await store.deleteProject({ id: project.id })).toBe(true);
      expect(await store.getWebhookEndpoint(created.endpoint.id)).toBeNull();
    });
  });
}
