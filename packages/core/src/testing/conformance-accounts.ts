import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../ports/store.js';
import { newId } from '../shared/ids.js';
import { type GetStore, T0 } from './fixtures.js';

/** Accounts and projects: creation, lookups, verification, the project limit, suspension. */
export function accountConformance(getStore: GetStore<AccountStore>): void {
  describe('accounts', () => {
    it('creates, gets and lists accounts, oldest first', async () => {
      const store = getStore();
      const first = await store.createAccount({
        id: newId('acct', T0),
        email: 'a@example.com',
        verified: false,
        now: T0,
      });
      expect(first).toEqual({ id: first.id, email: 'a@example.com', verified: false, createdAt: T0 });
      const second = await store.createAccount({
        id: newId('acct', T0 + 1),
        email: 'b@example.com',
        verified: true,
        now: T0 + 1,
      });
      expect(await store.getAccount(first.id)).toEqual(first);
      expect(await store.getAccount(second.id)).toEqual({
        id: second.id,
        email: 'b@example.com',
        verified: true,
        createdAt: T0 + 1,
      });
      expect(await store.getAccount('acct_unknown')).toBeNull();
      expect(await store.listAccounts()).toEqual([first, second]);
    });

    it('verifies an account, and answers null for an unknown one', async () => {
      const store = getStore();
      const account = await store.createAccount({
        id: newId('acct', T0),
        email: 'a@example.com',
        verified: false,
        now: T0,
      });
      expect(await store.setAccountVerified({ id: account.id, verified: true })).toEqual({
        ...account,
        verified: true,
      });
      expect((await store.getAccount(account.id))?.verified).toBe(true);
      expect(await store.setAccountVerified({ id: account.id, verified: false })).toEqual(account);
      expect(await store.setAccountVerified({ id: 'acct_unknown', verified: true })).toBeNull();
    });
  });

  describe('projects', () => {
    it('creates a project on a verified account, gets and lists it', async () => {
      const store = getStore();
      const account = await store.createAccount({
        id: newId('acct', T0),
        email: 'a@example.com',
        verified: true,
        now: T0,
      });
      const id = newId('proj', T0);
      const result = await store.createProject({ id, accountId: account.id, name: 'Shop', now: T0, maxProjects: 10 });
      const project = {
        id,
        accountId: account.id,
        name: 'Shop',
        suspended: false,
        createdAt: T0,
        suspendedAt: null,
        suspendedReason: null,
        suspendedBy: null,
      };
      expect(result).toEqual({ kind: 'created', project });
      expect(await store.getProject(id)).toEqual(project);
      expect(await store.getProject('proj_unknown')).toBeNull();
      expect(await store.listProjects(account.id)).toEqual([project]);
      expect(await store.listProjects('acct_unknown')).toEqual([]);
    });

    it('refuses an unknown account and an unverified one, creating nothing', async () => {
      const store = getStore();
      const unknown = await store.createProject({
        id: newId('proj', T0),
        accountId: 'acct_unknown',
        name: 'X',
        now: T0,
        maxProjects: 10,
      });
      expect(unknown).toEqual({ kind: 'account-not-found' });
      const account = await store.createAccount({
        id: newId('acct', T0),
        email: 'a@example.com',
        verified: false,
        now: T0,
      });
      const id = newId('proj', T0);
      const unverified = await store.createProject({ id, accountId: account.id, name: 'X', now: T0, maxProjects: 10 });
      expect(unverified).toEqual({ kind: 'email-not-verified' });
      expect(await store.getProject(id)).toBeNull();
      expect(await store.listProjects(account.id)).toEqual([]);
    });

    it('stops at maxProjects per account, counting suspended projects, and keeps accounts apart', async () => {
      const store = getStore();
      const account = await store.createAccount({
        id: newId('acct', T0),
        email: 'a@example.com',
        verified: true,
        now: T0,
      });
      const other = await store.createAccount({
        id: newId('acct', T0),
        email: 'b@example.com',
        verified: true,
        now: T0,
      });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const now = T0 + i;
        const result = await store.createProject({
          id: newId('proj', now),
          accountId: account.id,
          name: `P${i}`,
          now,
          maxProjects: 3,
        });
        expect(result.kind).toBe('created');
        if (result.kind === 'created') ids.push(result.project.id);
      }
      await store.setProjectSuspended({ id: ids[0]!, suspended: true, now: T0 + 10 });
      const fourthId = newId('proj', T0 + 20);
      const fourth = await store.createProject({
        id: fourthId,
        accountId: account.id,
        name: 'P3',
        now: T0 + 20,
        maxProjects: 3,
      });
      expect(fourth).toEqual({ kind: 'limit-reached' });
      expect(await store.getProject(fourthId)).toBeNull();
      expect((await store.listProjects(account.id)).map((project) => project.id)).toEqual(ids);
      const elsewhere = await store.createProject({
        id: newId('proj', T0),
        accountId: other.id,
        name: 'Other',
        now: T0,
        maxProjects: 3,
      });
      expect(elsewhere.kind).toBe('created');
      const raised = await store.createProject({
        id: newId('proj', T0 + 30),
        accountId: account.id,
        name: 'P3',
        now: T0 + 30,
        maxProjects: 4,
      });
      expect(raised.kind).toBe('created');
    });

    it('suspends and resumes a project', async () => {
      const store = getStore();
      const account = await store.createAccount({
        id: newId('acct', T0),
        email: 'a@example.com',
        verified: true,
        now: T0,
      });
      const created = await store.createProject({
        id: newId('proj', T0),
        accountId: account.id,
        name: 'Shop',
        now: T0,
        maxProjects: 10,
      });
      if (created.kind !== 'created') throw new Error(created.kind);
      const { id } = created.project;
      const suspended = await store.setProjectSuspended({ id, suspended: true, now: T0 + 5 });
      expect(suspended).toEqual({ ...created.project, suspended: true, suspendedAt: T0 + 5 });
      expect(await store.getProject(id)).toEqual(suspended);
      const resumed = await store.setProjectSuspended({ id, suspended: false, now: T0 + 9 });
      expect(resumed).toEqual({ ...created.project, suspended: false, suspendedAt: null });
      expect(await store.getProject(id)).toEqual(resumed);

      // A reason and an actor are kept while suspended; a second suspension keeps the first ones.
      const reason = "Spam: 100% of sends reported; see ticket #42 <b>'quoted'</b>";
      const withReason = await store.setProjectSuspended({
        id,
        suspended: true,
        now: T0 + 10,
        reason,
        actor: 'op@example.com',
      });
      const expected = {
        ...created.project,
        suspended: true,
        suspendedAt: T0 + 10,
        suspendedReason: reason,
        suspendedBy: 'op@example.com',
      };
      expect(withReason).toEqual(expected);
      expect(
        await store.setProjectSuspended({ id, suspended: true, now: T0 + 11, reason: 'again', actor: 'other' }),
      ).toEqual(expected);
      expect(await store.getProject(id)).toEqual(expected);
      expect((await store.listProjects(account.id))[0]).toEqual(expected);
      expect(await store.setProjectSuspended({ id, suspended: false, now: T0 + 12, reason: 'fixed' })).toEqual({
        ...created.project,
        suspended: false,
        suspendedAt: null,
      });
      expect(await store.setProjectSuspended({ id: 'proj_unknown', suspended: true, now: T0 })).toBeNull();
    });
  });
}
