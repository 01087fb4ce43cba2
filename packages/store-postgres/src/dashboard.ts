import type { AccountRecord } from '@tidings/core';
import type {
  AuditEventRecord,
  DashboardAccount,
  DashboardStore,
  SessionRecord,
  SessionSummary,
} from '@tidings/dashboard';
import type { Pool } from 'pg';
import { ACCOUNT } from './columns.js';
import { run, type Sql, transaction } from './db.js';

/** An account's columns with what signing in needs. */
const DASHBOARD_ACCOUNT = `${ACCOUNT}, password_hash AS "passwordHash", operator`;

interface DashboardAccountRow extends AccountRecord {
  passwordHash: string | null;
  operator: boolean;
}

function dashboardAccount({ passwordHash, operator, ...account }: DashboardAccountRow): DashboardAccount {
  return { account, passwordHash, operator };
}

interface EmailCodeRow {
  code_hash: string;
  expires_at: number;
  failed_attempts: number;
}

/** The dashboard's port on the store's database: sign-in, sessions, codes, audit log. */
export function dashboardOperations(pool: Pool, sql: Sql): DashboardStore {
  const { t, statement } = sql;
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
  const updateEmail = statement(
    'update_account_email',
    `UPDATE ${t('accounts')} SET email = $2 WHERE id = $1 RETURNING id`,
  );
  const deleteCodesOf = statement('delete_email_codes_of', `DELETE FROM ${t('email_codes')} WHERE email = $1`);
  const deleteAuditOf = statement(
    'delete_account_audit',
    `DELETE FROM ${t('audit_events')}
      WHERE project_id IN (SELECT id FROM ${t('projects')} WHERE account_id = $1) OR actor_account_id = $1`,
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
  const upsertCode = statement(
    'upsert_email_code',
    `INSERT INTO ${t('email_codes')} (email, purpose, code_hash, created_at, expires_at, failed_attempts)
     VALUES ($1, $2, $3, $4, $5, 0)
     ON CONFLICT (email, purpose) DO UPDATE SET
       code_hash = excluded.code_hash, created_at = excluded.created_at,
       expires_at = excluded.expires_at, failed_attempts = 0`,
  );
  const selectCode = statement(
    'select_email_code',
    `SELECT code_hash, expires_at, failed_attempts FROM ${t('email_codes')} WHERE email = $1 AND purpose = $2`,
  );
  // Checks of one code queue on its row, each reading the tries the previous one counted.
  const lockCode = statement(
    'lock_email_code',
    `SELECT code_hash, expires_at, failed_attempts FROM ${t('email_codes')}
      WHERE email = $1 AND purpose = $2 FOR UPDATE`,
  );
  const deleteCode = statement(
    'delete_email_code',
    `DELETE FROM ${t('email_codes')} WHERE email = $1 AND purpose = $2`,
  );
  const countFailure = statement(
    'count_email_code_failure',
    `UPDATE ${t('email_codes')} SET failed_attempts = failed_attempts + 1 WHERE email = $1 AND purpose = $2`,
  );
  const insertAudit = statement(
    'insert_audit_event',
    `INSERT INTO ${t('audit_events')} (id, project_id, action, actor_account_id, actor_email, ip, detail, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
  );
  const selectAudit = statement(
    'select_audit_events',
    `SELECT id, project_id AS "projectId", action, actor_account_id AS "actorAccountId", actor_email AS "actorEmail",
            ip, detail, created_at AS "createdAt"
       FROM ${t('audit_events')} WHERE project_id = $1 ORDER BY id DESC LIMIT $2`,
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
    async listAccountSessions({ accountId, now }) {
      return run<SessionSummary>(pool, selectAccountSessions, [accountId, now]);
    },
    async deleteAccountSession({ accountId, ref }) {
      return (await run(pool, deleteSessionByRef, [accountId, ref])).length > 0;
    },
    async deleteOtherSessions({ accountId, keepHash }) {
      return (await run(pool, deleteOtherSessions, [accountId, keepHash])).length;
    },
    async setAccountEmail({ id, email }) {
      return transaction(pool, async (client) => {
        await run(client, lockEmail, [`tidings.account-email ${sql.schema}`, email]);
        const [holder] = await run<{ id: string }>(client, selectByEmail, [email]);
        if (holder) return holder.id === id ? 'changed' : 'email-taken';
        return (await run(client, updateEmail, [id, email])).length > 0 ? 'changed' : 'not-found';
      });
    },
    async deleteAccountDashboardData({ accountId, email }) {
      await transaction(pool, async (client) => {
        await run(client, deleteSessions, [accountId]);
        await run(client, deleteCodesOf, [email]);
        await run(client, deleteAuditOf, [accountId]);
      });
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
    async putEmailCode({ email, purpose, codeHash, now, expiresAt }) {
      await run(pool, upsertCode, [email, purpose, codeHash, now, expiresAt]);
    },
    async consumeEmailCode({ email, purpose, codeHash, now, maxAttempts }) {
      return transaction(pool, async (client) => {
        const [row] = await run<EmailCodeRow>(client, lockCode, [email, purpose]);
        if (!row || row.expires_at <= now || row.failed_attempts >= maxAttempts) {
          if (row) await run(client, deleteCode, [email, purpose]);
          return { kind: 'missing' as const };
        }
        if (row.code_hash === codeHash) {
          await run(client, deleteCode, [email, purpose]);
          return { kind: 'valid' as const };
        }
        const attemptsLeft = maxAttempts - row.failed_attempts - 1;
        await run(client, attemptsLeft <= 0 ? deleteCode : countFailure, [email, purpose]);
        return { kind: 'invalid' as const, attemptsLeft };
      });
    },
    async hasEmailCode({ email, purpose, now }) {
      const [row] = await run<EmailCodeRow>(pool, selectCode, [email, purpose]);
      return row !== undefined && row.expires_at > now;
    },
    async appendAuditEvent(event: AuditEventRecord) {
      await run(pool, insertAudit, [
        event.id,
        event.projectId,
        event.action,
        event.actorAccountId,
        event.actorEmail,
        event.ip,
        event.detail,
        event.createdAt,
      ]);
    },
    async listAuditEvents({ projectId, limit }) {
      return run<AuditEventRecord>(pool, selectAudit, [projectId, limit]);
    },
  };
}
