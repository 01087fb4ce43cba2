import { describe, expect, it } from 'vitest';
import { newId } from '../ids.js';
import { type GetStore, readBack, seedBrowser, seedProject, sendCreated, T0 } from './fixtures.js';

/** What `tidings.admin` reads and renames for an owner or an operator: every project, a page of the log of sends. */
export function projectAdminConformance(getStore: GetStore): void {
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
  });
}
