import type { AccountRecord, ProjectRecord } from '@tidings/core';
import type { AccountStore } from '@tidings/core/store';
import type { Pool } from 'pg';
import { ACCOUNT, PROJECT } from './columns.js';
import { run, type Sql, transaction } from './db.js';

/** Accounts and projects. */
export function accountOperations(pool: Pool, sql: Sql): AccountStore {
  const { t, statement } = sql;
  const insertAccount = statement(
    'insert_account',
    `INSERT INTO ${t('accounts')} (id, email, verified, created_at) VALUES ($1, $2, $3, $4) RETURNING ${ACCOUNT}`,
  );
  const selectAccount = statement('select_account', `SELECT ${ACCOUNT} FROM ${t('accounts')} WHERE id = $1`);
  const selectAccounts = statement(
    'select_accounts',
    `SELECT ${ACCOUNT} FROM ${t('accounts')} ORDER BY created_at, id`,
  );
  const updateVerified = statement(
    'update_verified',
    `UPDATE ${t('accounts')} SET verified = $2 WHERE id = $1 RETURNING ${ACCOUNT}`,
  );
  // The account's row lock serializes the project creations of one account: the count that
  // follows, a statement of its own, sees every project committed before the lock was granted.
  const lockAccount = statement(
    'lock_account',
    `SELECT verified FROM ${t('accounts')} WHERE id = $1 FOR NO KEY UPDATE`,
  );
  const insertProjectUnderLimit = statement(
    'insert_project',
    `INSERT INTO ${t('projects')} (id, account_id, name, suspended, created_at)
     SELECT $1, $2, $3, false, $4
      WHERE (SELECT count(*) FROM ${t('projects')} WHERE account_id = $2) < $5
     RETURNING ${PROJECT}`,
  );
  const selectProject = statement('select_project', `SELECT ${PROJECT} FROM ${t('projects')} WHERE id = $1`);
  const selectProjects = statement(
    'select_projects',
    `SELECT ${PROJECT} FROM ${t('projects')} WHERE account_id = $1 ORDER BY created_at, id`,
  );
  // Suspending twice keeps the first time, reason and actor, like revoking a key.
  const updateSuspended = statement(
    'update_suspended',
    `UPDATE ${t('projects')}
        SET suspended = $2,
            suspended_at = CASE WHEN $2 THEN coalesce(suspended_at, $3) ELSE NULL END,
            suspended_reason = CASE WHEN NOT $2 THEN NULL WHEN suspended THEN suspended_reason ELSE $4::text END,
            suspended_by = CASE WHEN NOT $2 THEN NULL WHEN suspended THEN suspended_by ELSE $5::text END
      WHERE id = $1
  RETURNING ${PROJECT}`,
  );

  return {
    async createAccount({ id, email, verified, now }) {
      const [row] = await run<AccountRecord>(pool, insertAccount, [id, email, verified, now]);
      return row!;
    },
    async getAccount(id) {
      const [row] = await run<AccountRecord>(pool, selectAccount, [id]);
      return row ?? null;
    },
    async listAccounts() {
      return run<AccountRecord>(pool, selectAccounts);
    },
    async setAccountVerified({ id, verified }) {
      const [row] = await run<AccountRecord>(pool, updateVerified, [id, verified]);
      return row ?? null;
    },
    async createProject({ id, accountId, name, now, maxProjects }) {
      return transaction(pool, async (client) => {
        const [account] = await run<{ verified: boolean }>(client, lockAccount, [accountId]);
        if (!account) return { kind: 'account-not-found' };
        if (!account.verified) return { kind: 'email-not-verified' };
        const [project] = await run<ProjectRecord>(client, insertProjectUnderLimit, [
          id,
          accountId,
          name,
          now,
          maxProjects,
        ]);
        return project ? { kind: 'created', project } : { kind: 'limit-reached' };
      });
    },
    async getProject(id) {
      const [row] = await run<ProjectRecord>(pool, selectProject, [id]);
      return row ?? null;
    },
    async listProjects(accountId) {
      return run<ProjectRecord>(pool, selectProjects, [accountId]);
    },
    async setProjectSuspended({ id, suspended, now, reason = null, actor = null }) {
      const [row] = await run<ProjectRecord>(pool, updateSuspended, [id, suspended, now, reason, actor]);
      return row ?? null;
    },
  };
}
