import { describe, expect, it } from 'vitest';
import type {
  AccountStore,
  ApiKeyStore,
  BrowserStore,
  DeliveryStore,
  NotificationStore,
  ProjectAdminStore,
  UsageStore,
} from '../ports/store.js';
import { newId } from '../shared/ids.js';
import { hashSecret } from '../shared/secrets.js';
import { type GetStore, readBack, seedBrowser, seedProject, sendCreated, T0 } from './fixtures.js';

/** What `tidings.admin` reads and renames for an owner or an operator: every project, a page of the log of sends. */
export function projectAdminConformance(
  getStore: GetStore<
    AccountStore & ApiKeyStore & BrowserStore & DeliveryStore & NotificationStore & ProjectAdminStore & UsageStore
  >,
): void {
  describe('projects and log of sends (admin)', () => {
    it('renames a project and lists every project of every account', async () => {
      const store = getStore();
      const project = await seedProject(store);
      expect(await store.renameProject({ id: project.id, name: 'Renamed' })).toEqual({ ...project, name: 'Renamed' });
      expect(await store.renameProject({ id: 'proj_unknown', name: 'x' })).toBeNull();
      const account = await store.createAccount({
        id: newId('acct', T0 + 4),
        email: 'other@example.com',
        verified: true,
        now: T0,
      });
      const other = await store.createProject({
        id: newId('proj', T0 + 5),
        accountId: account.id,
        name: 'Other',
        now: T0 + 5,
        maxProjects: 10,
      });
      expect((await store.listAllProjects()).map((p) => p.id)).toEqual([
        project.id,
        other.kind === 'created' ? other.project.id : '',
      ]);
    });

    it('searches projects by name, id or account email, ignoring case, with % and _ matched literally', async () => {
      const store = getStore();
      const names = ['100% off', '100 percent', 'snake_case', 'snakeXcase', 'Back\\slash', 'Plain'];
      const projects = [];
      for (const [i, name] of names.entries()) {
        const account = await store.createAccount({
          id: newId('acct', T0 + i),
          email: i === 5 ? 'Owner_Five@Example.com' : `owner${i}@example.com`,
          verified: true,
          now: T0 + i,
        });
        const created = await store.createProject({
          id: newId('proj', T0 + i),
          accountId: account.id,
          name,
          now: T0 + i,
          maxProjects: 10,
        });
        if (created.kind !== 'created') throw new Error(created.kind);
        projects.push({ project: created.project, accountEmail: account.email });
      }
      const search = async (query: string | null, offset = 0, limit = 50) =>
        store.searchProjects({ query, offset, limit });
      const namesOf = (found: Awaited<ReturnType<typeof search>>) => found.projects.map((hit) => hit.project.name);

      expect(await search(null)).toEqual({ projects, total: 6 });
      expect(namesOf(await search('%'))).toEqual(['100% off']);
      expect(namesOf(await search('0%'))).toEqual(['100% off']);
      expect(namesOf(await search('r_f'))).toEqual(['Plain']);
      expect(namesOf(await search('e_c'))).toEqual(['snake_case']);
      expect(namesOf(await search('\\'))).toEqual(['Back\\slash']);
      expect(namesOf(await search('SNAKE'))).toEqual(['snake_case', 'snakeXcase']);
      expect(namesOf(await search('owner_five@'))).toEqual(['Plain']);
      expect(namesOf(await search(projects[3]!.project.id.toUpperCase()))).toEqual(['snakeXcase']);
      expect(await search('nothing like it')).toEqual({ projects: [], total: 0 });

      expect(await search(null, 0, 4)).toEqual({ projects: projects.slice(0, 4), total: 6 });
      expect(await search(null, 4, 4)).toEqual({ projects: projects.slice(4), total: 6 });
      expect(await search(null, 6, 4)).toEqual({ projects: [], total: 6 });
      expect(await search('snake', 1, 1)).toEqual({ projects: [projects[3]], total: 2 });
    });

    it("lists a project's sends newest first, by pages, filtered by recipient and mode", async () => {
      const store = getStore();
      const project = await seedProject(store);
      const other = await seedProject(store, T0 + 1);
      await seedBrowser(store, project.id, 'alice');
      await seedBrowser(store, project.id, 'alice');
      await seedBrowser(store, project.id, 'bob');
      await seedBrowser(store, other.id, 'alice');
      const sent = [];
      for (let i = 0; i < 5; i++) {
        sent.push(
          await sendCreated(store, {
            projectId: project.id,
            recipient: i % 2 === 0 ? 'alice' : 'bob',
            mode: i === 4 ? 'test' : 'live',
            now: T0 + 10 + i,
          }),
        );
      }
      await sendCreated(store, { projectId: other.id, recipient: 'alice', now: T0 + 20 });
      const page = (input: { beforeId?: string; recipient?: string; mode?: 'live' | 'test'; limit?: number }) =>
        store.listNotifications({
          projectId: project.id,
          beforeId: input.beforeId ?? null,
          limit: input.limit ?? 10,
          recipient: input.recipient ?? null,
          mode: input.mode ?? null,
        });
      const ids = (list: { notification: { id: string } }[]) => list.map((item) => item.notification.id);
      const newestFirst = sent.map((item) => item.notification.id).reverse();
      const all = await page({});
      expect(ids(all)).toEqual(newestFirst);
      expect(all[0]).toEqual(await readBack(store, project.id, newestFirst[0]!));
      expect(all[0]?.attempts).toHaveLength(2);
      const first = await page({ limit: 2 });
      expect(ids(first)).toEqual(newestFirst.slice(0, 2));
      expect(ids(await page({ limit: 2, beforeId: newestFirst[1]! }))).toEqual(newestFirst.slice(2, 4));
      expect(ids(await page({ recipient: 'bob' }))).toEqual([sent[3]!, sent[1]!].map((item) => item.notification.id));
      expect(ids(await page({ mode: 'test' }))).toEqual([sent[4]!.notification.id]);
      expect(ids(await page({ recipient: 'alice', mode: 'live' }))).toEqual(
        [sent[2]!, sent[0]!].map((item) => item.notification.id),
      );
    });

    it("lists a project's recipients by id, byte by byte, by pages, with their connected browsers", async () => {
      const store = getStore();
      const project = await seedProject(store);
      const other = await seedProject(store, T0 + 1);
      // A connect token alone makes a recipient, with no browser yet.
      await store.createConnectToken({
        hash: hashSecret('ct_token_only'),
        projectId: project.id,
        recipient: 'token-only',
        now: T0 + 2,
        expiresAt: T0 + 60_000,
      });
      await seedBrowser(store, project.id, 'alice', T0 + 3);
      await seedBrowser(store, project.id, 'alice', T0 + 4);
      const gone = await seedBrowser(store, project.id, 'alice', T0 + 5);
      await store.disconnectBrowser({ browserId: gone.id, reason: 'browser_disconnected', now: T0 + 6 });
      // Byte order, not a locale's: `.` and digits before capitals, capitals before small letters.
      for (const recipient of ['Zed', 'a:b@c.d', '.', '9lives'])
        await seedBrowser(store, project.id, recipient, T0 + 7);
      await seedBrowser(store, other.id, 'bob', T0 + 8);

      const page = (afterRecipient: string | null, limit = 10) =>
        store.listRecipients({ projectId: project.id, afterRecipient, limit });
      const all = await page(null);
      expect(all.map((item) => item.recipient)).toEqual(['.', '9lives', 'Zed', 'a:b@c.d', 'alice', 'token-only']);
      expect(all.find((item) => item.recipient === 'alice')).toEqual({
        recipient: 'alice',
        createdAt: T0 + 3,
        connectedBrowsers: 2,
      });
      expect(all.find((item) => item.recipient === 'token-only')).toEqual({
        recipient: 'token-only',
        createdAt: T0 + 2,
        connectedBrowsers: 0,
      });

      // Each page starts after the last id of the one before, and a cursor need not be a recipient.
      expect(await page(null, 2)).toEqual(all.slice(0, 2));
      expect(await page('9lives', 2)).toEqual(all.slice(2, 4));
      expect(await page('a:b@c.d', 2)).toEqual(all.slice(4, 6));
      expect(await page('token-only', 2)).toEqual([]);
      expect((await page('b', 10)).map((item) => item.recipient)).toEqual(['token-only']);

      expect((await store.listRecipients({ projectId: other.id, afterRecipient: null, limit: 10 })).length).toBe(1);
      expect(await store.listRecipients({ projectId: 'proj_unknown', afterRecipient: null, limit: 10 })).toEqual([]);
      await store.deleteProject({ id: project.id });
      expect(await page(null)).toEqual([]);
    });

    it('deletes a project with all it holds; its keys are found no more; the limit has a place again', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const other = await seedProject(store, T0 + 1);
      const key = await store.createApiKey({
        id: newId('key', T0 + 2),
        projectId: project.id,
        hash: hashSecret('sk_test_deleted'),
        prefix: 'sk_test_dele',
        mode: 'test',
        name: null,
        now: T0 + 2,
        maxActive: 10,
      });
      if (key.kind !== 'created') throw new Error(key.kind);
      expect(await store.findApiKeyByHash(hashSecret('sk_test_deleted'))).not.toBeNull();
      await store.createConnectToken({
        hash: hashSecret('ct_deleted'),
        projectId: project.id,
        recipient: 'alice',
        now: T0 + 3,
        expiresAt: T0 + 60_000,
      });
      const browser = await seedBrowser(store, project.id, 'alice', T0 + 3);
      const kept = await seedBrowser(store, other.id, 'alice', T0 + 3);
      const sent = await sendCreated(store, { projectId: project.id, recipient: 'alice', now: T0 + 4 });
      const otherSent = await sendCreated(store, { projectId: other.id, recipient: 'alice', now: T0 + 5 });

      expect(await store.deleteProject({ id: project.id })).toBe(true);
      expect(await store.getProject(project.id)).toBeNull();
      expect(await store.getApiKey(key.key.id)).toBeNull();
      expect(await store.findApiKeyByHash(hashSecret('sk_test_deleted'))).toBeNull();
      expect(await store.findConnectToken(hashSecret('ct_deleted'))).toBeNull();
      expect(await store.findBrowser(browser.id)).toBeNull();
      expect(await store.getNotification({ projectId: project.id, id: sent.notification.id })).toBeNull();
      expect(await store.listDeliveries({ browserId: browser.id, now: T0 + 6 })).toEqual([]);
      expect(await store.getUsage({ projectId: project.id, fromDay: '2026-01-01', toDay: '2026-01-01' })).toEqual([]);
      expect(await store.listProjects(project.accountId)).toEqual([]);
      // The other project keeps everything.
      expect(await store.findBrowser(kept.id)).not.toBeNull();
      expect(await readBack(store, other.id, otherSent.notification.id)).toEqual(otherSent);
      expect(await store.deleteProject({ id: project.id })).toBe(false);
      // A place under the limit is free again.
      const again = await store.createProject({
        id: newId('proj', T0 + 7),
        accountId: project.accountId,
        name: 'Again',
        now: T0 + 7,
        maxProjects: 1,
      });
      expect(again.kind).toBe('created');
    });

    it('deletes an account with each of its projects, and only its own', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const second = await store.createProject({
        id: newId('proj', T0 + 1),
        accountId: project.accountId,
        name: 'Second',
        now: T0 + 1,
        maxProjects: 10,
      });
      if (second.kind !== 'created') throw new Error(second.kind);
      await seedBrowser(store, second.project.id, 'bob', T0 + 2);
      await sendCreated(store, { projectId: second.project.id, recipient: 'bob', now: T0 + 3 });
      const stranger = await store.createAccount({
        id: newId('acct', T0 + 4),
        email: 'stranger@example.com',
        verified: true,
        now: T0 + 4,
      });
      const deleted = await store.deleteAccount({ id: project.accountId });
      expect(deleted?.projectIds.sort()).toEqual([project.id, second.project.id].sort());
      expect(await store.getAccount(project.accountId)).toBeNull();
      expect(await store.getProject(second.project.id)).toBeNull();
      expect(await store.getAccount(stranger.id)).toEqual(stranger);
      expect(await store.deleteAccount({ id: project.accountId })).toBeNull();
    });
  });
}
