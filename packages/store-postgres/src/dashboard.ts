import type { AccountRecord } from '@tidings/core';
import type {
  AuditEventRecord,
  DashboardAccount,
  DashboardStore,
  InvitationRecord,
  PasskeyRecord,
  PendingSignInRecord,
  PurgedDashboardData,
  SessionRecord,
  SessionSummary,
} from '@tidings/dashboard';
import type { Pool } from 'pg';
import { ACCOUNT } from './columns.js';
import { run, type Sql, transaction } from './db.js';
import { containsPattern } from './like.js';

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
    `INSERT INTO ${t('email_codes')} (email, purpose, code_hash, created_at, expires_at, failed_attempts, issued_by)
     VALUES ($1, $2, $3, $4, $5, 0, $6)
     ON CONFLICT (email, purpose) DO UPDATE SET
       code_hash = excluded.code_hash, created_at = excluded.created_at,
       expires_at = excluded.expires_at, failed_attempts = 0, issued_by = excluded.issued_by`,
  );
  const selectInvitations = statement(
    'select_invitations',
    `SELECT email, issued_by AS "invitedBy", created_at AS "createdAt", expires_at AS "expiresAt"
       FROM ${t('email_codes')}
      WHERE purpose = 'invite' AND expires_at > $1 AND failed_attempts < $2 AND ($4::text IS NULL OR email = $4::text)
      ORDER BY created_at DESC, email LIMIT $3`,
  );
  const deleteInvitation = statement(
    'delete_invitation',
    `DELETE FROM ${t('email_codes')}
      WHERE email = $1 AND purpose = 'invite' AND expires_at > $2 AND failed_attempts < $3 RETURNING email`,
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
    `INSERT INTO ${t('audit_events')}
       (id, project_id, action, source, actor_account_id, actor_email, actor_name, ip, detail, reason, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
  );
  const selectAudit = statement(
    'select_audit_events',
    `SELECT id, project_id AS "projectId", action, source, actor_account_id AS "actorAccountId",
            actor_email AS "actorEmail", actor_name AS "actorName", ip, detail, reason, created_at AS "createdAt"
       FROM ${t('audit_events')}
      WHERE ($1::text IS NULL OR project_id = $1::text)
        AND ($2::text IS NULL OR coalesce(actor_email, actor_name) = $2::text)
      ORDER BY id DESC LIMIT $3`,
  );

  const PASSKEY = `credential_id AS "credentialId", account_id AS "accountId", public_key AS "publicKey", counter,
    transports, name, created_at AS "createdAt", last_used_at AS "lastUsedAt"`;
  const insertPasskey = statement(
    'insert_passkey',
    `INSERT INTO ${t('passkeys')} (credential_id, account_id, public_key, counter, transports, name, created_at, last_used_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
  );
  const selectPasskeys = statement(
    'select_passkeys',
    `SELECT ${PASSKEY} FROM ${t('passkeys')} WHERE account_id = $1 ORDER BY created_at, credential_id`,
  );
  const selectPasskey = statement('select_passkey', `SELECT ${PASSKEY} FROM ${t('passkeys')} WHERE credential_id = $1`);
  const updatePasskeyUse = statement(
    'update_passkey_use',
    `UPDATE ${t('passkeys')} SET counter = $2, last_used_at = $3 WHERE credential_id = $1`,
  );
  const deletePasskey = statement(
    'delete_passkey',
    `DELETE FROM ${t('passkeys')} WHERE account_id = $1 AND credential_id = $2 RETURNING credential_id`,
  );
  const deleteRecoveryCodes = statement(
    'delete_recovery_codes',
    `DELETE FROM ${t('recovery_codes')} WHERE account_id = $1`,
  );
  const insertRecoveryCodes = statement(
    'insert_recovery_codes',
    `INSERT INTO ${t('recovery_codes')} (account_id, hash, created_at)
     SELECT $1, hash, $3 FROM unnest($2::text[]) AS hash ON CONFLICT DO NOTHING`,
  );
  const deleteRecoveryCode = statement(
    'delete_recovery_code',
    `DELETE FROM ${t('recovery_codes')} WHERE account_id = $1 AND hash = $2 RETURNING hash`,
  );
  const countRecoveryCodes = statement(
    'count_recovery_codes',
    `SELECT count(*)::int8 AS count FROM ${t('recovery_codes')} WHERE account_id = $1`,
  );
  const PENDING = 'account_id AS "accountId", next, created_at AS "createdAt", expires_at AS "expiresAt"';
  const insertPending = statement(
    'insert_pending_sign_in',
    `INSERT INTO ${t('pending_sign_ins')} (hash, account_id, next, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
  );
  const selectPending = statement(
    'select_pending_sign_in',
    `SELECT ${PENDING} FROM ${t('pending_sign_ins')} WHERE hash = $1 AND expires_at > $2`,
  );
  // One statement: of two concurrent uses, only the one whose delete found the row answers it.
  const takePending = statement(
    'take_pending_sign_in',
    `DELETE FROM ${t('pending_sign_ins')} WHERE hash = $1 RETURNING ${PENDING}`,
  );
  const upsertChallenge = statement(
    'upsert_webauthn_challenge',
    `INSERT INTO ${t('webauthn_challenges')} (key, challenge, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT (key) DO UPDATE SET challenge = excluded.challenge, expires_at = excluded.expires_at`,
  );
  // One statement, so the four deletions are one snapshot and one round trip.
  const purgeExpired = statement(
    'purge_expired_dashboard_data',
    `WITH sessions AS (
       DELETE FROM ${t('sessions')} WHERE idle_expires_at <= $1 OR absolute_expires_at <= $1 RETURNING 1
     ), codes AS (
       DELETE FROM ${t('email_codes')} WHERE expires_at <= $1 RETURNING 1
     ), pending AS (
       DELETE FROM ${t('pending_sign_ins')} WHERE expires_at <= $1 RETURNING 1
     ), challenges AS (
       DELETE FROM ${t('webauthn_challenges')} WHERE expires_at <= $1 RETURNING 1
     )
     SELECT (SELECT count(*) FROM sessions)::int AS sessions, (SELECT count(*) FROM codes)::int AS codes,
            (SELECT count(*) FROM pending)::int AS "pendingSignIns",
            (SELECT count(*) FROM challenges)::int AS challenges`,
  );
  const takeChallenge = statement(
    'take_webauthn_challenge',
    `DELETE FROM ${t('webauthn_challenges')} WHERE key = $1 RETURNING challenge, expires_at AS "expiresAt"`,
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
    async putEmailCode({ email, purpose, codeHash, now, expiresAt, issuedBy = null }) {
      await run(pool, upsertCode, [email, purpose, codeHash, now, expiresAt, issuedBy]);
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
    async listInvitations({ now, maxAttempts, limit, email }) {
      return run<InvitationRecord>(pool, selectInvitations, [now, maxAttempts, limit, email ?? null]);
    },
    async revokeInvitation({ email, now, maxAttempts }) {
      return (await run(pool, deleteInvitation, [email, now, maxAttempts])).length > 0;
    },
    async addPasskey(passkey) {
      await run(pool, insertPasskey, [
        passkey.credentialId,
        passkey.accountId,
        passkey.publicKey,
        passkey.counter,
        passkey.transports,
        passkey.name,
        passkey.createdAt,
        passkey.lastUsedAt,
      ]);
    },
    async listPasskeys(accountId) {
      return run<PasskeyRecord>(pool, selectPasskeys, [accountId]);
    },
    async findPasskey(credentialId) {
      const [row] = await run<PasskeyRecord>(pool, selectPasskey, [credentialId]);
      return row ?? null;
    },
    async usePasskey({ credentialId, counter, now }) {
      await run(pool, updatePasskeyUse, [credentialId, counter, now]);
    },
    async deletePasskey({ accountId, credentialId }) {
      return (await run(pool, deletePasskey, [accountId, credentialId])).length > 0;
    },
    async replaceRecoveryCodes({ accountId, hashes, now }) {
      await transaction(pool, async (client) => {
        await run(client, deleteRecoveryCodes, [accountId]);
        if (hashes.length > 0) await run(client, insertRecoveryCodes, [accountId, hashes, now]);
      });
    },
    async useRecoveryCode({ accountId, hash }) {
      return (await run(pool, deleteRecoveryCode, [accountId, hash])).length > 0;
    },
    async countRecoveryCodes(accountId) {
      const [row] = await run<{ count: number }>(pool, countRecoveryCodes, [accountId]);
      return row?.count ?? 0;
    },
    async createPendingSignIn({ hash, accountId, next, createdAt, expiresAt }) {
      await run(pool, insertPending, [hash, accountId, next, createdAt, expiresAt]);
    },
    async findPendingSignIn({ hash, now }) {
      const [row] = await run<PendingSignInRecord>(pool, selectPending, [hash, now]);
      return row ?? null;
    },
    async takePendingSignIn({ hash, now }) {
      const [row] = await run<PendingSignInRecord>(pool, takePending, [hash]);
      return row && row.expiresAt > now ? row : null;
    },
    async putWebAuthnChallenge({ key, challenge, expiresAt }) {
      await run(pool, upsertChallenge, [key, challenge, expiresAt]);
    },
    async purgeExpired({ now }) {
      const [row] = await run<PurgedDashboardData>(pool, purgeExpired, [now]);
      return row!;
    },
    async takeWebAuthnChallenge({ key, now }) {
      const [row] = await run<{ challenge: string; expiresAt: number }>(pool, takeChallenge, [key]);
      return row && row.expiresAt > now ? row.challenge : null;
    },
    async appendAuditEvent(event: AuditEventRecord) {
      await run(pool, insertAudit, [
        event.id,
        event.projectId,
        event.action,
        event.source,
        event.actorAccountId,
        event.actorEmail,
        event.actorName,
        event.ip,
        event.detail,
        event.reason,
        event.createdAt,
      ]);
    },
    async listAuditEvents({ projectId, actor, limit }) {
      return run<AuditEventRecord>(pool, selectAudit, [projectId ?? null, actor ?? null, limit]);
    },
  };
}
