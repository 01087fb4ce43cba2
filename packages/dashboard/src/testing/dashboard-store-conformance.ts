import { hashSecret, newId, type Store } from '@tidings/core';
import { DAY_MS, seedProject, T0 } from '@tidings/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEventRecord, DashboardStore, PasskeyRecord } from '../store.js';

/** A store and the dashboard's port on the same database (`createSqliteDashboardStore(store)`, for one). */
export interface DashboardStores {
  /** The core's store: the suite seeds projects and plain accounts through it, and closes it. */
  store: Store;
  dashboardStore: DashboardStore;
}

type GetStores = () => DashboardStores;

const HOUR_MS = 3_600_000;

async function seedAccount(getStores: GetStores, email = 'a@example.com') {
  const result = await getStores().dashboardStore.createAccountWithPassword({
    id: newId('acct', T0),
    email,
    passwordHash: 'scrypt$hash',
    verified: false,
    operator: false,
    now: T0,
  });
  if (result.kind !== 'created') throw new Error('seedAccount: email taken');
  return result.account;
}

/**
 * Registers the conformance tests (vitest `describe`/`it`) of the dashboard's port for one store
 * implementation: accounts by email and password, sessions, one-time codes (concurrent checks
 * included), the audit log. `makeStores` is called before every test and must return an empty
 * database; the suite closes `store` afterwards.
 *
 * @example
 * // createSqliteDashboardStore of `@tidings/dashboard/sqlite`
 * runDashboardStoreConformance('sqlite :memory:', async () => {
 *   const store = createSqliteStore({ path: ':memory:' });
 *   return { store, dashboardStore: createSqliteDashboardStore(store) };
 * });
 */
export function runDashboardStoreConformance(name: string, makeStores: () => Promise<DashboardStores>): void {
  describe(`DashboardStore conformance: ${name}`, () => {
    let stores: DashboardStores | undefined;
    const getStores = (): DashboardStores => {
      if (!stores) throw new Error('the stores are only available inside a test');
      return stores;
    };
    beforeEach(async () => {
      stores = await makeStores();
    });
    afterEach(async () => {
      await stores?.store.close();
      stores = undefined;
    });
    dashboardStoreCases(getStores);
  });
}

function dashboardStoreCases(getStore: GetStores): void {
  describe('dashboard accounts', () => {
    it('creates an account with a password, finds it by email and id, refuses a second one', async () => {
      const { store: core, dashboardStore: store } = getStore();
      const created = await seedAccount(getStore);
      expect(created).toEqual({
        account: { id: created.account.id, email: 'a@example.com', verified: false, createdAt: T0 },
        passwordHash: 'scrypt$hash',
        operator: false,
      });
      expect(await store.findAccountByEmail('a@example.com')).toEqual(created);
      expect(await store.getDashboardAccount(created.account.id)).toEqual(created);
      expect(await core.getAccount(created.account.id)).toEqual(created.account);
      expect(await store.findAccountByEmail('b@example.com')).toBeNull();
      const again = await store.createAccountWithPassword({
        id: newId('acct', T0),
        email: 'a@example.com',
        passwordHash: 'other',
        verified: true,
        operator: true,
        now: T0,
      });
      expect(again).toEqual({ kind: 'email-taken' });
    });

    it('lets exactly one of concurrent sign-ups with one email through', async () => {
      const { store: core, dashboardStore: store } = getStore();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store.createAccountWithPassword({
            id: newId('acct', T0 + i),
            email: 'race@example.com',
            passwordHash: `h${i}`,
            verified: false,
            operator: false,
            now: T0,
          }),
        ),
      );
      expect(results.filter((result) => result.kind === 'created')).toHaveLength(1);
      expect((await core.listAccounts()).filter((account) => account.email === 'race@example.com')).toHaveLength(1);
    });

    it('finds accounts created without a password, and sets passwords and the operator flag', async () => {
      const { store: core, dashboardStore: store } = getStore();
      const plain = await core.createAccount({
        id: newId('acct', T0),
        email: 'cli@example.com',
        verified: true,
        now: T0,
      });
      expect(await store.findAccountByEmail('cli@example.com')).toEqual({
        account: plain,
        passwordHash: null,
        operator: false,
      });
      expect(await store.setAccountPassword({ id: plain.id, passwordHash: 'new' })).toBe(true);
      expect(await store.setAccountPassword({ id: 'acct_unknown', passwordHash: 'new' })).toBe(false);
      expect(await store.setAccountOperator({ id: plain.id, operator: true })).toEqual({
        account: plain,
        passwordHash: 'new',
        operator: true,
      });
      expect(await store.setAccountOperator({ id: 'acct_unknown', operator: true })).toBeNull();
    });

    it('lists the ids of the operator accounts, and only those', async () => {
      const { store: core, dashboardStore: store } = getStore();
      const made = async (email: string) =>
        (await core.createAccount({ id: newId('acct', T0), email, verified: true, now: T0 })).id;
      const [a, b, c] = [await made('a@example.com'), await made('b@example.com'), await made('c@example.com')];
      expect(await store.listOperatorIds()).toEqual([]);
      await store.setAccountOperator({ id: c, operator: true });
      await store.setAccountOperator({ id: a, operator: true });
      expect(await store.listOperatorIds()).toEqual([a, c].sort());
      await store.setAccountOperator({ id: a, operator: false });
      expect(await store.listOperatorIds()).toEqual([c]);
      expect(await store.listOperatorIds()).not.toContain(b);
    });
  });

  describe('sessions', () => {
    it('resumes a session, moving its idle expiry, never past the absolute one', async () => {
      const { dashboardStore: store } = getStore();
      const { account } = await seedAccount(getStore);
      const hash = hashSecret('session-1');
      await store.createSession({
        hash,
        accountId: account.id,
        now: T0,
        idleExpiresAt: T0 + HOUR_MS,
        absoluteExpiresAt: T0 + 2 * HOUR_MS,
      });
      const resumed = await store.resumeSession({ hash, now: T0 + HOUR_MS - 1, idleExpiresAt: T0 + 2 * HOUR_MS + 5 });
      expect(resumed?.account.account.id).toBe(account.id);
      expect(resumed?.session).toEqual({
        accountId: account.id,
        createdAt: T0,
        idleExpiresAt: T0 + 2 * HOUR_MS,
        absoluteExpiresAt: T0 + 2 * HOUR_MS,
      });
      expect(await store.resumeSession({ hash, now: T0 + 2 * HOUR_MS, idleExpiresAt: T0 + 3 * HOUR_MS })).toBeNull();
      expect(await store.resumeSession({ hash: hashSecret('unknown'), now: T0, idleExpiresAt: T0 + 1 })).toBeNull();
    });

    it('ends a session after its idle time, and on delete, and all of an account at once', async () => {
      const { dashboardStore: store } = getStore();
      const { account } = await seedAccount(getStore);
      const session = (id: string) =>
        store.createSession({
          hash: hashSecret(id),
          accountId: account.id,
          now: T0,
          idleExpiresAt: T0 + HOUR_MS,
          absoluteExpiresAt: T0 + DAY_MS,
        });
      await session('s1');
      await session('s2');
      await session('s3');
      await session('s4');
      const resume = (id: string, now = T0 + 1) =>
        store.resumeSession({ hash: hashSecret(id), now, idleExpiresAt: now + HOUR_MS });
      expect(await resume('s1', T0 + HOUR_MS)).toBeNull();
      await store.deleteSession(hashSecret('s2'));
      expect(await resume('s2')).toBeNull();
      expect(await resume('s3')).not.toBeNull();
      await store.deleteAccountSessions(account.id);
      expect(await resume('s3')).toBeNull();
      expect(await resume('s4')).toBeNull();
    });

    it("lists an account's live sessions by last use, ends one by its ref, or all but one", async () => {
      const { dashboardStore: store } = getStore();
      const { account } = await seedAccount(getStore);
      const other = await seedAccount(getStore, 'b@example.com');
      const session = (id: string, now: number, accountId = account.id) =>
        store.createSession({
          hash: hashSecret(id),
          accountId,
          now,
          idleExpiresAt: now + HOUR_MS,
          absoluteExpiresAt: now + DAY_MS,
          userAgent: `agent ${id}`,
          ip: '192.0.2.1',
        });
      await session('s1', T0);
      await session('s2', T0 + 1);
      await session('s3', T0 + 2);
      await session('expired', T0 - HOUR_MS);
      await session('theirs', T0, other.account.id);
      await store.resumeSession({ hash: hashSecret('s1'), now: T0 + 10, idleExpiresAt: T0 + 10 + HOUR_MS });
      const listed = await store.listAccountSessions({ accountId: account.id, now: T0 + 20 });
      const ref = (id: string) => hashSecret(id).slice(0, 16);
      expect(listed).toEqual([
        { ref: ref('s1'), createdAt: T0, lastUsedAt: T0 + 10, userAgent: 'agent s1', ip: '192.0.2.1' },
        { ref: ref('s3'), createdAt: T0 + 2, lastUsedAt: T0 + 2, userAgent: 'agent s3', ip: '192.0.2.1' },
        { ref: ref('s2'), createdAt: T0 + 1, lastUsedAt: T0 + 1, userAgent: 'agent s2', ip: '192.0.2.1' },
      ]);
      // Another account's session is not this account's to end.
      expect(await store.deleteAccountSession({ accountId: account.id, ref: ref('theirs') })).toBe(false);
      expect(await store.deleteAccountSession({ accountId: account.id, ref: ref('s3') })).toBe(true);
      expect(
        await store.resumeSession({ hash: hashSecret('s3'), now: T0 + 30, idleExpiresAt: T0 + HOUR_MS }),
      ).toBeNull();
      expect(
        await store.deleteOtherSessions({ accountId: account.id, keepHash: hashSecret('s1') }),
      ).toBeGreaterThanOrEqual(1);
      expect((await store.listAccountSessions({ accountId: account.id, now: T0 + 40 })).map((s) => s.ref)).toEqual([
        ref('s1'),
      ]);
      expect(await store.listAccountSessions({ accountId: other.account.id, now: T0 + 40 })).toHaveLength(1);
    });
  });

  describe('one-time codes', () => {
    const put = (getStoreFn: GetStores, code: string, now = T0) =>
      getStoreFn().dashboardStore.putEmailCode({
        email: 'a@example.com',
        purpose: 'verify',
        codeHash: hashSecret(code),
        now,
        expiresAt: now + 15 * 60_000,
      });
    const check = (getStoreFn: GetStores, code: string, now = T0 + 1, purpose: 'verify' | 'reset' = 'verify') =>
      getStoreFn().dashboardStore.consumeEmailCode({
        email: 'a@example.com',
        purpose,
        codeHash: hashSecret(code),
        now,
        maxAttempts: 5,
      });

    it('accepts a code once, within its time, for its purpose only', async () => {
      const { dashboardStore: store } = getStore();
      await put(getStore, '123456');
      expect(await store.hasEmailCode({ email: 'a@example.com', purpose: 'verify', now: T0 })).toBe(true);
      expect(await check(getStore, '123456', T0 + 1, 'reset')).toEqual({ kind: 'missing' });
      expect(await check(getStore, '123456')).toEqual({ kind: 'valid' });
      expect(await check(getStore, '123456')).toEqual({ kind: 'missing' });
      expect(await store.hasEmailCode({ email: 'a@example.com', purpose: 'verify', now: T0 })).toBe(false);
      await put(getStore, '654321');
      expect(await check(getStore, '654321', T0 + 15 * 60_000)).toEqual({ kind: 'missing' });
    });

    it('voids a code after five wrong tries, and a new code starts afresh', async () => {
      await put(getStore, '123456');
      for (let left = 4; left >= 0; left--) {
        expect(await check(getStore, '000000')).toEqual({ kind: 'invalid', attemptsLeft: left });
      }
      expect(await check(getStore, '123456')).toEqual({ kind: 'missing' });
      await put(getStore, '222222');
      expect(await check(getStore, '000000')).toEqual({ kind: 'invalid', attemptsLeft: 4 });
      expect(await check(getStore, '222222')).toEqual({ kind: 'valid' });
    });

    it('never allows more than five tries to concurrent checks', async () => {
      await put(getStore, '123456');
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => check(getStore, String(100000 + i))));
      expect(results.filter((result) => result.kind === 'invalid')).toHaveLength(5);
      expect(await check(getStore, '123456')).toEqual({ kind: 'missing' });
    });
  });

  describe('audit log', () => {
    it('keeps a project audit log, newest first', async () => {
      const { store: core, dashboardStore: store } = getStore();
      const project = await seedProject(core);
      const other = await seedProject(core, T0 + 1);
      const events: AuditEventRecord[] = [0, 1, 2].map((i) => ({
        id: newId('aud', T0 + i),
        projectId: project.id,
        action: i === 0 ? 'project.created' : 'key.created',
        source: 'dashboard',
        actorAccountId: project.accountId,
        actorEmail: 'owner@example.com',
        actorName: null,
        ip: '127.0.0.1',
        detail: `event ${i}`,
        reason: null,
        createdAt: T0 + i,
      }));
      for (const event of events) await store.appendAuditEvent(event);
      await store.appendAuditEvent({ ...events[0]!, id: newId('aud', T0), projectId: other.id });
      expect(await store.listAuditEvents({ projectId: project.id, limit: 10 })).toEqual([...events].reverse());
      expect(await store.listAuditEvents({ projectId: project.id, limit: 2 })).toEqual([events[2], events[1]]);
    });

    it("keeps the CLI's entries and entries without a project, with reasons, filtered by project and actor", async () => {
      const { store: core, dashboardStore: store } = getStore();
      const project = await seedProject(core);
      const suspended: AuditEventRecord = {
        id: newId('aud', T0 + 1),
        projectId: project.id,
        action: 'project.suspended',
        source: 'cli',
        actorAccountId: null,
        actorEmail: null,
        actorName: 'alice',
        ip: null,
        detail: 'App',
        reason: 'Spam reports: 100% of "sends"',
        createdAt: T0 + 1,
      };
      const created: AuditEventRecord = {
        ...suspended,
        id: newId('aud', T0 + 2),
        projectId: null,
        action: 'account.created',
        actorName: 'bob',
        detail: 'new@example.com',
        reason: null,
        createdAt: T0 + 2,
      };
      const fromPage: AuditEventRecord = {
        ...suspended,
        id: newId('aud', T0 + 3),
        action: 'project.resumed',
        source: 'dashboard',
        actorAccountId: project.accountId,
        actorEmail: 'op@example.com',
        actorName: null,
        ip: '203.0.113.9',
        reason: 'fixed',
        createdAt: T0 + 3,
      };
      for (const event of [suspended, created, fromPage]) await store.appendAuditEvent(event);
      expect(await store.listAuditEvents({ limit: 10 })).toEqual([fromPage, created, suspended]);
      expect(await store.listAuditEvents({ limit: 1 })).toEqual([fromPage]);
      expect(await store.listAuditEvents({ projectId: project.id, limit: 10 })).toEqual([fromPage, suspended]);
      expect(await store.listAuditEvents({ actor: 'alice', limit: 10 })).toEqual([suspended]);
      expect(await store.listAuditEvents({ actor: 'op@example.com', limit: 10 })).toEqual([fromPage]);
      expect(await store.listAuditEvents({ actor: 'bob', projectId: project.id, limit: 10 })).toEqual([]);
      expect(await store.listAuditEvents({ actor: 'nobody', limit: 10 })).toEqual([]);
    });
  });

  describe('operators: accounts search and invitations', () => {
    it('searches accounts by email or id, ignoring case, with % and _ matched literally, by pages', async () => {
      const { dashboardStore: store } = getStore();
      const emails = ['ann_lee@example.com', 'annxlee@example.com', '100%@example.com', 'Bob@Example.com'];
      const accounts = [];
      for (const [i, email] of emails.entries()) {
        const result = await store.createAccountWithPassword({
          id: newId('acct', T0 + i),
          email,
          passwordHash: 'scrypt$hash',
          verified: i % 2 === 0,
          operator: i === 3,
          now: T0 + i,
        });
        if (result.kind !== 'created') throw new Error(result.kind);
        accounts.push(result.account);
      }
      const search = (query: string | null, offset = 0, limit = 50) => store.searchAccounts({ query, offset, limit });
      const emailsOf = async (query: string | null) =>
        (await search(query)).accounts.map((found) => found.account.email);
      expect(await search(null)).toEqual({ accounts, total: 4 });
      expect(await emailsOf('n_l')).toEqual(['ann_lee@example.com']);
      expect(await emailsOf('%@')).toEqual(['100%@example.com']);
      expect(await emailsOf('BOB@')).toEqual(['Bob@Example.com']);
      expect(await emailsOf(accounts[1]!.account.id.toUpperCase())).toEqual(['annxlee@example.com']);
      expect(await emailsOf('zzz')).toEqual([]);
      expect(await search(null, 0, 3)).toEqual({ accounts: accounts.slice(0, 3), total: 4 });
      expect(await search(null, 3, 3)).toEqual({ accounts: accounts.slice(3), total: 4 });
      expect(await search(null, 4, 3)).toEqual({ accounts: [], total: 4 });
      expect(await search('ann', 1, 1)).toEqual({ accounts: [accounts[1]], total: 2 });
    });

    it('lists the invitations that still work, with who sent them, and revokes one for good', async () => {
      const { dashboardStore: store } = getStore();
      const invite = (email: string, now: number, issuedBy: string | null, ttl = 7 * DAY_MS) =>
        store.putEmailCode({ email, purpose: 'invite', codeHash: `h-${email}`, now, expiresAt: now + ttl, issuedBy });
      await invite('old@example.com', T0, 'op@example.com');
      await invite('new@example.com', T0 + 5, 'root@example.com');
      await invite('gone@example.com', T0, null, HOUR_MS);
      await store.putEmailCode({
        email: 'x@example.com',
        purpose: 'verify',
        codeHash: 'h',
        now: T0,
        expiresAt: T0 + DAY_MS,
      });
      const now = T0 + 2 * HOUR_MS;
      expect(await store.listInvitations({ now, maxAttempts: 5, limit: 10 })).toEqual([
        { email: 'new@example.com', invitedBy: 'root@example.com', createdAt: T0 + 5, expiresAt: T0 + 5 + 7 * DAY_MS },
        { email: 'old@example.com', invitedBy: 'op@example.com', createdAt: T0, expiresAt: T0 + 7 * DAY_MS },
      ]);
      expect(await store.listInvitations({ now, maxAttempts: 5, limit: 1 })).toHaveLength(1);
      expect(await store.listInvitations({ now, maxAttempts: 5, limit: 10, email: 'old@example.com' })).toEqual([
        { email: 'old@example.com', invitedBy: 'op@example.com', createdAt: T0, expiresAt: T0 + 7 * DAY_MS },
      ]);
      expect(await store.listInvitations({ now, maxAttempts: 5, limit: 10, email: 'gone@example.com' })).toEqual([]);

      expect(await store.revokeInvitation({ email: 'old@example.com', now, maxAttempts: 5 })).toBe(true);
      expect(await store.revokeInvitation({ email: 'old@example.com', now, maxAttempts: 5 })).toBe(false);
      expect(await store.revokeInvitation({ email: 'gone@example.com', now, maxAttempts: 5 })).toBe(false);
      expect(await store.revokeInvitation({ email: 'x@example.com', now, maxAttempts: 5 })).toBe(false);
      expect(
        await store.consumeEmailCode({
          email: 'old@example.com',
          purpose: 'invite',
          codeHash: 'h-old@example.com',
          now,
          maxAttempts: 5,
        }),
      ).toEqual({ kind: 'missing' });
      expect((await store.listInvitations({ now, maxAttempts: 5, limit: 10 })).map((i) => i.email)).toEqual([
        'new@example.com',
      ]);
      expect(await store.hasEmailCode({ email: 'x@example.com', purpose: 'verify', now })).toBe(true);
    });
  });

  describe('second factor', () => {
    const passkey = (accountId: string, credentialId: string, createdAt: number): PasskeyRecord => ({
      credentialId,
      accountId,
      publicKey: `pk-${credentialId}`,
      counter: 0,
      transports: ['internal', 'hybrid'],
      name: `key ${credentialId}`,
      createdAt,
      lastUsedAt: null,
    });

    it('adds, lists, finds, uses and removes passkeys, one account at a time', async () => {
      const store = getStore().dashboardStore;
      const a = await seedAccount(getStore, 'a@example.com');
      const b = await seedAccount(getStore, 'b@example.com');
      const first = passkey(a.account.id, 'cred-1', T0);
      const second = passkey(a.account.id, 'cred-2', T0 + 1);
      await store.addPasskey(second);
      await store.addPasskey(first);
      await store.addPasskey({ ...passkey(b.account.id, 'cred-3', T0), transports: [] });
      expect(await store.listPasskeys(a.account.id)).toEqual([first, second]);
      expect(await store.findPasskey('cred-3')).toEqual({ ...passkey(b.account.id, 'cred-3', T0), transports: [] });
      expect(await store.findPasskey('nope')).toBeNull();
      await store.usePasskey({ credentialId: 'cred-1', counter: 7, now: T0 + HOUR_MS });
      expect(await store.findPasskey('cred-1')).toEqual({ ...first, counter: 7, lastUsedAt: T0 + HOUR_MS });
      // Another account's passkey cannot be removed through this one.
      expect(await store.deletePasskey({ accountId: a.account.id, credentialId: 'cred-3' })).toBe(false);
      expect(await store.deletePasskey({ accountId: a.account.id, credentialId: 'cred-1' })).toBe(true);
      expect(await store.deletePasskey({ accountId: a.account.id, credentialId: 'cred-1' })).toBe(false);
      expect(await store.listPasskeys(a.account.id)).toEqual([second]);
      expect(await store.listPasskeys(b.account.id)).toHaveLength(1);
    });

    it('uses each recovery code once, and replaces them all at once', async () => {
      const store = getStore().dashboardStore;
      const a = await seedAccount(getStore, 'a@example.com');
      const b = await seedAccount(getStore, 'b@example.com');
      await store.replaceRecoveryCodes({ accountId: a.account.id, hashes: ['h1', 'h2', 'h3'], now: T0 });
      await store.replaceRecoveryCodes({ accountId: b.account.id, hashes: ['h9'], now: T0 });
      expect(await store.countRecoveryCodes(a.account.id)).toBe(3);
      expect(await store.useRecoveryCode({ accountId: a.account.id, hash: 'h9' })).toBe(false);
      const uses = await Promise.all(
        [1, 2, 3].map(() => store.useRecoveryCode({ accountId: a.account.id, hash: 'h2' })),
      );
      expect(uses.filter(Boolean)).toHaveLength(1);
      expect(await store.countRecoveryCodes(a.account.id)).toBe(2);
      await store.replaceRecoveryCodes({ accountId: a.account.id, hashes: ['n1', 'n2'], now: T0 + 1 });
      expect(await store.useRecoveryCode({ accountId: a.account.id, hash: 'h1' })).toBe(false);
      expect(await store.useRecoveryCode({ accountId: a.account.id, hash: 'n1' })).toBe(true);
      await store.replaceRecoveryCodes({ accountId: a.account.id, hashes: [], now: T0 + 2 });
      expect(await store.countRecoveryCodes(a.account.id)).toBe(0);
      expect(await store.countRecoveryCodes(b.account.id)).toBe(1);
    });

    it('keeps a pending sign-in until it expires or is taken, once', async () => {
      const store = getStore().dashboardStore;
      const a = await seedAccount(getStore);
      const pending = { accountId: a.account.id, next: '/dashboard', createdAt: T0, expiresAt: T0 + 300_000 };
      await store.createPendingSignIn({ hash: 'p1', ...pending });
      await store.createPendingSignIn({ hash: 'p2', ...pending });
      expect(await store.findPendingSignIn({ hash: 'p1', now: T0 + 1 })).toEqual(pending);
      expect(await store.findPendingSignIn({ hash: 'p1', now: T0 + 300_000 })).toBeNull();
      expect(await store.findPendingSignIn({ hash: 'nope', now: T0 })).toBeNull();
      const takes = await Promise.all([1, 2, 3].map(() => store.takePendingSignIn({ hash: 'p1', now: T0 + 1 })));
      expect(takes.filter(Boolean)).toEqual([pending]);
      expect(await store.findPendingSignIn({ hash: 'p1', now: T0 + 1 })).toBeNull();
      expect(await store.takePendingSignIn({ hash: 'p2', now: T0 + 300_000 })).toBeNull();
      expect(await store.findPendingSignIn({ hash: 'p2', now: T0 })).toBeNull();
    });

    it('answers a WebAuthn challenge once, before it expires, the latest one only', async () => {
      const store = getStore().dashboardStore;
      await store.putWebAuthnChallenge({ key: 'k', challenge: 'c1', expiresAt: T0 + 1000 });
      await store.putWebAuthnChallenge({ key: 'k', challenge: 'c2', expiresAt: T0 + 1000 });
      await store.putWebAuthnChallenge({ key: 'old', challenge: 'c3', expiresAt: T0 + 1000 });
      const takes = await Promise.all([1, 2].map(() => store.takeWebAuthnChallenge({ key: 'k', now: T0 })));
      expect(takes.filter(Boolean)).toEqual(['c2']);
      expect(await store.takeWebAuthnChallenge({ key: 'k', now: T0 })).toBeNull();
      expect(await store.takeWebAuthnChallenge({ key: 'old', now: T0 + 1000 })).toBeNull();
      expect(await store.takeWebAuthnChallenge({ key: 'old', now: T0 })).toBeNull();
    });

    it('purges what expired, and keeps what can still be used', async () => {
      const store = getStore().dashboardStore;
      const { account } = await seedAccount(getStore);
      const session = (id: string, idleExpiresAt: number, absoluteExpiresAt: number) =>
        store.createSession({ hash: hashSecret(id), accountId: account.id, now: T0, idleExpiresAt, absoluteExpiresAt });
      await session('idle-over', T0 + 10, T0 + DAY_MS);
      await session('absolute-over', T0 + DAY_MS, T0 + 10);
      await session('live', T0 + 11, T0 + DAY_MS);
      const code = (email: string, purpose: 'verify' | 'invite', expiresAt: number) =>
        store.putEmailCode({ email, purpose, codeHash: hashSecret(`${email}-${purpose}`), now: T0, expiresAt });
      await code('old@example.com', 'verify', T0 + 10);
      await code('old@example.com', 'invite', T0 + 5);
      await code('new@example.com', 'verify', T0 + 11);
      const pending = { accountId: account.id, next: '/dashboard', createdAt: T0 };
      await store.createPendingSignIn({ hash: 'old', ...pending, expiresAt: T0 + 10 });
      await store.createPendingSignIn({ hash: 'new', ...pending, expiresAt: T0 + 11 });
      await store.putWebAuthnChallenge({ key: 'old', challenge: 'c1', expiresAt: T0 + 10 });
      await store.putWebAuthnChallenge({ key: 'new', challenge: 'c2', expiresAt: T0 + 11 });

      expect(await store.purgeExpired({ now: T0 + 10 })).toEqual({
        sessions: 2,
        codes: 2,
        pendingSignIns: 1,
        challenges: 1,
      });
      expect(await store.purgeExpired({ now: T0 + 10 })).toEqual({
        sessions: 0,
        codes: 0,
        pendingSignIns: 0,
        challenges: 0,
      });
      expect(
        await store.resumeSession({ hash: hashSecret('live'), now: T0 + 1, idleExpiresAt: T0 + 11 }),
      ).not.toBeNull();
      expect(await store.hasEmailCode({ email: 'new@example.com', purpose: 'verify', now: T0 + 1 })).toBe(true);
      expect(await store.findPendingSignIn({ hash: 'new', now: T0 + 1 })).toEqual({ ...pending, expiresAt: T0 + 11 });
      expect(await store.takeWebAuthnChallenge({ key: 'new', now: T0 + 1 })).toBe('c2');
      // Purged rows are gone, not just hidden: a check at an earlier time no longer finds them.
      expect(await store.hasEmailCode({ email: 'old@example.com', purpose: 'verify', now: T0 })).toBe(false);
      expect(await store.findPendingSignIn({ hash: 'old', now: T0 })).toBeNull();
    });

    it('changes an email unless another account has it', async () => {
      const { dashboardStore: store } = getStore();
      const { account } = await seedAccount(getStore);
      await seedAccount(getStore, 'taken@example.com');
      expect(await store.setAccountEmail({ id: account.id, email: 'taken@example.com' })).toBe('email-taken');
      expect(await store.setAccountEmail({ id: account.id, email: 'new@example.com' })).toBe('changed');
      expect((await store.findAccountByEmail('new@example.com'))?.account.id).toBe(account.id);
      expect(await store.findAccountByEmail('a@example.com')).toBeNull();
      expect(await store.setAccountEmail({ id: 'acct_unknown', email: 'free@example.com' })).toBe('not-found');
    });

    it("deletes an account's sessions, codes and audit log, and nobody else's", async () => {
      const { store: core, dashboardStore: store } = getStore();
      const project = await seedProject(core);
      const other = await seedProject(core, T0 + 1);
      await store.createSession({
        hash: hashSecret('mine'),
        accountId: project.accountId,
        now: T0,
        idleExpiresAt: T0 + HOUR_MS,
        absoluteExpiresAt: T0 + DAY_MS,
      });
      await store.putEmailCode({
        email: 'owner@example.com',
        purpose: 'reset',
        codeHash: hashSecret('c'),
        now: T0,
        expiresAt: T0 + HOUR_MS,
      });
      const event = (projectId: string, i: number): AuditEventRecord => ({
        id: newId('aud', T0 + i),
        projectId,
        action: 'project.created',
        source: 'dashboard',
        actorAccountId: projectId === project.id ? project.accountId : other.accountId,
        actorEmail: 'owner@example.com',
        actorName: null,
        ip: null,
        detail: 'x',
        reason: null,
        createdAt: T0 + i,
      });
      await store.appendAuditEvent(event(project.id, 0));
      await store.appendAuditEvent(event(other.id, 1));
      await store.deleteAccountDashboardData({ accountId: project.accountId, email: 'owner@example.com' });
      expect(
        await store.resumeSession({ hash: hashSecret('mine'), now: T0 + 1, idleExpiresAt: T0 + HOUR_MS }),
      ).toBeNull();
      expect(await store.hasEmailCode({ email: 'owner@example.com', purpose: 'reset', now: T0 + 1 })).toBe(false);
      expect(await store.listAuditEvents({ projectId: project.id, limit: 10 })).toEqual([]);
      expect(await store.listAuditEvents({ projectId: other.id, limit: 10 })).toHaveLength(1);
      // The account can go now, and its email is free for a new sign-up.
      await core.deleteAccount({ id: project.accountId });
      expect((await store.findAccountByEmail('owner@example.com'))?.account.id).toBe(other.accountId);
    });

    it('keeps the audit log of a deleted project', async () => {
      const { store: core, dashboardStore: store } = getStore();
      const project = await seedProject(core);
      await store.appendAuditEvent({
        id: newId('aud', T0),
        projectId: project.id,
        action: 'project.deleted',
        source: 'dashboard',
        actorAccountId: project.accountId,
        actorEmail: 'owner@example.com',
        actorName: null,
        ip: null,
        detail: 'App',
        reason: null,
        createdAt: T0,
      });
      expect(await core.deleteProject({ id: project.id })).toBe(true);
      expect((await store.listAuditEvents({ projectId: project.id, limit: 10 })).map((e) => e.action)).toEqual([
        'project.deleted',
      ]);
    });
  });
}
