import { run, type Sql, transaction } from '@tidings/store-postgres/sql';
import type { EmailCodeStore, InvitationRecord } from '../store.js';
import { dashboardStatement, type Pool } from './rows.js';

interface EmailCodeRow {
  code_hash: string;
  expires_at: number;
  failed_attempts: number;
}

/** One-time codes and invitations, one row per address and purpose. */
export function emailCodeOperations(pool: Pool, sql: Sql): EmailCodeStore {
  const { t } = sql;
  const statement = (name: string, text: string) => dashboardStatement(sql, name, text);
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

  return {
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
  };
}
