import type { ConsumeEmailCodeResult, EmailCodePurpose, EmailCodeStore } from '../store.js';
import type { Connection } from './rows.js';

interface EmailCodeRow {
  code_hash: string;
  expires_at: number;
  failed_attempts: number;
}

interface InvitationRow {
  email: string;
  issued_by: string | null;
  created_at: number;
  expires_at: number;
}

/** One-time codes and invitations, one row per address and purpose. */
export function emailCodeOperations(db: Connection): EmailCodeStore {
  const upsertCode = db.prepare<[string, string, string, number, number, string | null]>(
    `INSERT INTO email_codes (email, purpose, code_hash, created_at, expires_at, failed_attempts, issued_by)
     VALUES (?, ?, ?, ?, ?, 0, ?)
     ON CONFLICT (email, purpose) DO UPDATE SET
       code_hash = excluded.code_hash, created_at = excluded.created_at,
       expires_at = excluded.expires_at, failed_attempts = 0, issued_by = excluded.issued_by`,
  );
  const selectInvitations = db.prepare<
    { now: number; maxAttempts: number; limit: number; email: string | null },
    InvitationRow
  >(
    `SELECT email, issued_by, created_at, expires_at FROM email_codes
      WHERE purpose = 'invite' AND expires_at > @now AND failed_attempts < @maxAttempts
        AND (@email IS NULL OR email = @email)
      ORDER BY created_at DESC, email LIMIT @limit`,
  );
  const deleteInvitation = db.prepare<[string, number, number]>(
    `DELETE FROM email_codes WHERE email = ? AND purpose = 'invite' AND expires_at > ? AND failed_attempts < ?`,
  );
  const selectCode = db.prepare<[string, string], EmailCodeRow>(
    'SELECT code_hash, expires_at, failed_attempts FROM email_codes WHERE email = ? AND purpose = ?',
  );
  const deleteCode = db.prepare<[string, string]>('DELETE FROM email_codes WHERE email = ? AND purpose = ?');
  const countFailure = db.prepare<[string, string]>(
    'UPDATE email_codes SET failed_attempts = failed_attempts + 1 WHERE email = ? AND purpose = ?',
  );

  const consumeCode = db.transaction(
    (email: string, purpose: EmailCodePurpose, codeHash: string, now: number, max: number): ConsumeEmailCodeResult => {
      const row = selectCode.get(email, purpose);
      if (!row || row.expires_at <= now || row.failed_attempts >= max) {
        if (row) deleteCode.run(email, purpose);
        return { kind: 'missing' };
      }
      if (row.code_hash === codeHash) {
        deleteCode.run(email, purpose);
        return { kind: 'valid' };
      }
      countFailure.run(email, purpose);
      const attemptsLeft = max - row.failed_attempts - 1;
      if (attemptsLeft <= 0) deleteCode.run(email, purpose);
      return { kind: 'invalid', attemptsLeft };
    },
  );

  return {
    async putEmailCode({ email, purpose, codeHash, now, expiresAt, issuedBy = null }) {
      upsertCode.run(email, purpose, codeHash, now, expiresAt, issuedBy);
    },
    async consumeEmailCode({ email, purpose, codeHash, now, maxAttempts }) {
      return consumeCode.immediate(email, purpose, codeHash, now, maxAttempts);
    },
    async hasEmailCode({ email, purpose, now }) {
      const row = selectCode.get(email, purpose);
      return row !== undefined && row.expires_at > now;
    },
    async listInvitations({ now, maxAttempts, limit, email }) {
      return selectInvitations.all({ now, maxAttempts, limit, email: email ?? null }).map((row) => ({
        email: row.email,
        invitedBy: row.issued_by,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      }));
    },
    async revokeInvitation({ email, now, maxAttempts }) {
      return deleteInvitation.run(email, now, maxAttempts).changes > 0;
    },
  };
}
