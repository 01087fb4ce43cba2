import { containsPattern, run, type Sql, transaction } from '@tidings/store-postgres/sql';
import type { DashboardAccountStore } from '../store.js';
import {
  DASHBOARD_ACCOUNT,
  type DashboardAccountRow,
  dashboardAccount,
  dashboardStatement,
  type Pool,
} from './rows.js';

/** Accounts and passwords, on the core's `accounts` table. */
export function accountOperations(pool: Pool, sql: Sql): DashboardAccountStore {
  const { t } = sql;
  const statement = (name: string, text: string) => dashboardStatement(sql, name, text);
  const selectByEmail = statement(
    'select_account_by_email',
    `SELECT ${DASHBOARD_ACCOUNT} FROM ${t('accounts')} WHERE email = $1 ORDER BY created_at, id LIMIT 1`,
  );
  const selectById = statement(
    'select_dashboard_account',
    `SELECT ${DASHBOARD_ACCOUNT} FROM ${t('accounts')} WHERE id = $1`,
  );
  const selectOperatorIds = statement(
    'select_operator_ids',
    `SELECT id FROM ${t('accounts')} WHERE operator ORDER BY id`,
  );
  // Accounts made before the dashboard may share an email, so no unique index can hold it: the
  // check and the insert run under a transaction lock on the email, which serializes the
  // creations of one email while the commit of the first makes its row visible to the next.
  const lockEmail = statement('lock_account_email', 'SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))');
  const insertAccount = statement(
    'insert_account_with_password',
    `INSERT INTO ${t('accounts')} (id, email, verified, password_hash, operator, created_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${DASHBOARD_ACCOUNT}`,
  );
  const updatePassword = statement(
    'update_account_password',
    `UPDATE ${t('accounts')} SET password_hash = $2 WHERE id = $1 RETURNING id`,
  );
  const updateOperator = statement(
    'update_account_operator',
    `UPDATE ${t('accounts')} SET operator = $2 WHERE id = $1 RETURNING ${DASHBOARD_ACCOUNT}`,
  );
  const updateEmail = statement(
    'update_account_email',
    `UPDATE ${t('accounts')} SET email = $2 WHERE id = $1 RETURNING id`,
  );
  // The operators' page only: no index. ILIKE ignores case; the pattern escapes % and _.
  const ACCOUNT_MATCHES = `($1::text IS NULL OR email ILIKE $1::text ESCAPE '\\' OR id ILIKE $1::text ESCAPE '\\')`;
  const searchAccounts = statement(
    'search_accounts',
    `SELECT c.total, m.* FROM (SELECT count(*) AS total FROM ${t('accounts')} WHERE ${ACCOUNT_MATCHES}) AS c
       LEFT JOIN LATERAL (
         SELECT ${DASHBOARD_ACCOUNT} FROM ${t('accounts')} WHERE ${ACCOUNT_MATCHES}
          ORDER BY created_at, id LIMIT $2 OFFSET $3
       ) AS m ON true`,
  );

  return {
    async findAccountByEmail(email) {
      const [row] = await run<DashboardAccountRow>(pool, selectByEmail, [email]);
      return row ? dashboardAccount(row) : null;
    },
    async getDashboardAccount(id) {
      const [row] = await run<DashboardAccountRow>(pool, selectById, [id]);
      return row ? dashboardAccount(row) : null;
    },
    async listOperatorIds() {
      return (await run<{ id: string }>(pool, selectOperatorIds, [])).map((row) => row.id);
    },
    async searchAccounts({ query, offset, limit }) {
      const rows = await run<DashboardAccountRow & { total: number }>(pool, searchAccounts, [
        containsPattern(query),
        limit,
        offset,
      ]);
      return {
        accounts: rows.filter((row) => row.id !== null).map(({ total: _total, ...row }) => dashboardAccount(row)),
        total: rows[0]?.total ?? 0,
      };
    },
    async createAccountWithPassword({ id, email, passwordHash, verified, operator, now }) {
      return transaction(pool, async (client) => {
        await run(client, lockEmail, [`tidings.account-email ${sql.schema}`, email]);
        const [existing] = await run(client, selectByEmail, [email]);
        if (existing) return { kind: 'email-taken' as const };
        const [row] = await run<DashboardAccountRow>(client, insertAccount, [
          id,
          email,
          verified,
          passwordHash,
          operator,
          now,
        ]);
        return { kind: 'created' as const, account: dashboardAccount(row!) };
      });
    },
    async setAccountPassword({ id, passwordHash }) {
      return (await run(pool, updatePassword, [id, passwordHash])).length > 0;
    },
    async setAccountOperator({ id, operator }) {
      const [row] = await run<DashboardAccountRow>(pool, updateOperator, [id, operator]);
      return row ? dashboardAccount(row) : null;
    },
    async setAccountEmail({ id, email }) {
      return transaction(pool, async (client) => {
        await run(client, lockEmail, [`tidings.account-email ${sql.schema}`, email]);
        const [holder] = await run<{ id: string }>(client, selectByEmail, [email]);
        if (holder) return holder.id === id ? 'changed' : 'email-taken';
        return (await run(client, updateEmail, [id, email])).length > 0 ? 'changed' : 'not-found';
      });
    },
  };
}
