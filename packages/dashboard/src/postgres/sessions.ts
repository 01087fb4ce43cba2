import { run, type Sql } from '@tidings/store-postgres/sql';
import type { SessionRecord, SessionStore, SessionSummary } from '../store.js';
import { type DashboardAccountRow, dashboardAccount, dashboardStatement, type Pool } from './rows.js';

/** Sessions, found by the SHA-256 of their id. */
export function sessionOperations(pool: Pool, sql: Sql): SessionStore {
  const { t } = sql;
  const statement = (name: string, text: string) => dashboardStatement(sql, name, text);
  const insertSession = statement(
    'insert_session',
    `INSERT INTO ${t('sessions')}
       (hash, account_id, created_at, idle_expires_at, absolute_expires_at, last_used_at, user_agent, ip)
     VALUES ($1, $2, $3, $4, $5, $3, $6, $7)`,
  );
  const selectAccountSessions = statement(
    'select_account_sessions',
    `SELECT substr(hash, 1, 16) AS ref, created_at AS "createdAt", coalesce(last_used_at, created_at) AS "lastUsedAt",
            user_agent AS "userAgent", ip
       FROM ${t('sessions')} WHERE account_id = $1 AND idle_expires_at > $2 AND absolute_expires_at > $2
      ORDER BY 3 DESC, 2 DESC`,
  );
  const deleteSessionByRef = statement(
    'delete_session_by_ref',
    `DELETE FROM ${t('sessions')} WHERE account_id = $1 AND substr(hash, 1, 16) = $2 RETURNING hash`,
  );
  const deleteOtherSessions = statement(
    'delete_other_sessions',
    `DELETE FROM ${t('sessions')} WHERE account_id = $1 AND hash <> $2 RETURNING hash`,
  );
  // One statement: the row's lock orders concurrent uses, each re-checking expiry on the latest row.
  const resume = statement(
    'resume_session',
    `WITH s AS (
       UPDATE ${t('sessions')} SET idle_expires_at = least($3, absolute_expires_at), last_used_at = $2
        WHERE hash = $1 AND idle_expires_at > $2 AND absolute_expires_at > $2
       RETURNING account_id, created_at, idle_expires_at, absolute_expires_at
     )
     SELECT s.account_id AS "accountId", s.created_at AS "sessionCreatedAt", s.idle_expires_at AS "idleExpiresAt",
            s.absolute_expires_at AS "absoluteExpiresAt", a.id, a.email, a.verified, a.created_at AS "createdAt",
            a.password_hash AS "passwordHash", a.operator
       FROM s JOIN ${t('accounts')} AS a ON a.id = s.account_id`,
  );
  const deleteExpiredSession = statement(
    'delete_expired_session',
    `DELETE FROM ${t('sessions')} WHERE hash = $1 AND (idle_expires_at <= $2 OR absolute_expires_at <= $2)`,
  );
  const deleteSession = statement('delete_session', `DELETE FROM ${t('sessions')} WHERE hash = $1`);
  const deleteSessions = statement('delete_account_sessions', `DELETE FROM ${t('sessions')} WHERE account_id = $1`);

  return {
    async createSession({ hash, accountId, now, idleExpiresAt, absoluteExpiresAt, userAgent, ip }) {
      await run(pool, insertSession, [
        hash,
        accountId,
        now,
        idleExpiresAt,
        absoluteExpiresAt,
        userAgent ?? null,
        ip ?? null,
      ]);
    },
    async resumeSession({ hash, now, idleExpiresAt }) {
      const [row] = await run<DashboardAccountRow & Omit<SessionRecord, 'createdAt'> & { sessionCreatedAt: number }>(
        pool,
        resume,
        [hash, now, idleExpiresAt],
      );
      if (!row) {
        await run(pool, deleteExpiredSession, [hash, now]);
        return null;
      }
      const { accountId, sessionCreatedAt, idleExpiresAt: idle, absoluteExpiresAt, ...account } = row;
      return {
        session: { accountId, createdAt: sessionCreatedAt, idleExpiresAt: idle, absoluteExpiresAt },
        account: dashboardAccount(account),
      };
    },
    async deleteSession(hash) {
      await run(pool, deleteSession, [hash]);
    },
    async deleteAccountSessions(accountId) {
      await run(pool, deleteSessions, [accountId]);
    },
    async listAccountSessions({ accountId, now }) {
      return run<SessionSummary>(pool, selectAccountSessions, [accountId, now]);
    },
    async deleteAccountSession({ accountId, ref }) {
      return (await run(pool, deleteSessionByRef, [accountId, ref])).length > 0;
    },
    async deleteOtherSessions({ accountId, keepHash }) {
      return (await run(pool, deleteOtherSessions, [accountId, keepHash])).length;
    },
  };
}
