import type {
  AuditAction,
  AuditEventRecord,
  ConsumeEmailCodeResult,
  CreateAccountWithPasswordResult,
  DashboardAccount,
  DashboardStore,
  EmailCodePurpose,
  SessionSummary,
} from '@tidings/dashboard';
import type Database from 'better-sqlite3';
import { type AccountRow, accountFromRow, type Bit, bit } from './rows.js';

interface DashboardAccountRow extends AccountRow {
  password_hash: string | null;
  operator: Bit;
}

function dashboardAccountFromRow(row: DashboardAccountRow): DashboardAccount {
  return { account: accountFromRow(row), passwordHash: row.password_hash, operator: row.operator === 1 };
}

interface SessionRow {
  account_id: string;
  created_at: number;
  idle_expires_at: number;
  absolute_expires_at: number;
}

interface SessionListRow {
  ref: string;
  created_at: number;
  last_used_at: number;
  user_agent: string | null;
  ip: string | null;
}

interface EmailCodeRow {
  code_hash: string;
  expires_at: number;
  failed_attempts: number;
}

interface AuditEventRow {
  id: string;
  project_id: string;
  action: AuditAction;
  actor_account_id: string | null;
  actor_email: string | null;
  ip: string | null;
  detail: string;
  created_at: number;
}

/** The dashboard's port on the store's database: sign-in, sessions, codes, audit log. */
export function dashboardOperations(db: Database.Database): DashboardStore {
  const selectByEmail = db.prepare<[string], DashboardAccountRow>(
    'SELECT * FROM accounts WHERE email = ? ORDER BY created_at, id LIMIT 1',
  );
  const selectById = db.prepare<[string], DashboardAccountRow>('SELECT * FROM accounts WHERE id = ?');
  const selectOperatorIds = db.prepare<[], { id: string }>('SELECT id FROM accounts WHERE operator = 1 ORDER BY id');
  const insertAccount = db.prepare<[string, string, number, string, number, number], DashboardAccountRow>(
    `INSERT INTO accounts (id, email, verified, password_hash, operator, created_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const updatePassword = db.prepare<[string, string]>('UPDATE accounts SET password_hash = ? WHERE id = ?');
  const updateOperator = db.prepare<[number, string], DashboardAccountRow>(
    'UPDATE accounts SET operator = ? WHERE id = ? RETURNING *',
  );
  const insertSession = db.prepare<[string, string, number, number, number, number, string | null, string | null]>(
    `INSERT INTO sessions (hash, account_id, created_at, idle_expires_at, absolute_expires_at, last_used_at, user_agent, ip)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const selectAccountSessions = db.prepare<[string, number, number], SessionListRow>(
    `SELECT substr(hash, 1, 16) AS ref, created_at, coalesce(last_used_at, created_at) AS last_used_at, user_agent, ip
       FROM sessions WHERE account_id = ? AND idle_expires_at > ? AND absolute_expires_at > ?
      ORDER BY last_used_at DESC, created_at DESC`,
  );
  const deleteSessionByRef = db.prepare<[string, string]>(
    'DELETE FROM sessions WHERE account_id = ? AND substr(hash, 1, 16) = ?',
  );
  const deleteOtherSessions = db.prepare<[string, string]>('DELETE FROM sessions WHERE account_id = ? AND hash <> ?');
  const updateEmail = db.prepare<[string, string]>('UPDATE accounts SET email = ? WHERE id = ?');
  const deleteCodesOf = db.prepare<[string]>('DELETE FROM email_codes WHERE email = ?');
  const deleteAuditOf = db.prepare<[string, string]>(
    `DELETE FROM audit_events
      WHERE project_id IN (SELECT id FROM projects WHERE account_id = ?) OR actor_account_id = ?`,
  );
  const selectSession = db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE hash = ?');
  const extendSession = db.prepare<[number, number, string]>(
    'UPDATE sessions SET idle_expires_at = ?, last_used_at = ? WHERE hash = ?',
  );
  const deleteSession = db.prepare<[string]>('DELETE FROM sessions WHERE hash = ?');
  const deleteSessions = db.prepare<[string]>('DELETE FROM sessions WHERE account_id = ?');
  const upsertCode = db.prepare<[string, string, string, number, number]>(
    `INSERT INTO email_codes (email, purpose, code_hash, created_at, expires_at, failed_attempts)
     VALUES (?, ?, ?, ?, ?, 0)
     ON CONFLICT (email, purpose) DO UPDATE SET
       code_hash = excluded.code_hash, created_at = excluded.created_at,
       expires_at = excluded.expires_at, failed_attempts = 0`,
  );
  const selectCode = db.prepare<[string, string], EmailCodeRow>(
    'SELECT code_hash, expires_at, failed_attempts FROM email_codes WHERE email = ? AND purpose = ?',
  );
  const deleteCode = db.prepare<[string, string]>('DELETE FROM email_codes WHERE email = ? AND purpose = ?');
  const countFailure = db.prepare<[string, string]>(
    'UPDATE email_codes SET failed_attempts = failed_attempts + 1 WHERE email = ? AND purpose = ?',
  );
  const insertAudit = db.prepare<[string, string, string, string | null, string | null, string | null, string, number]>(
    `INSERT INTO audit_events (id, project_id, action, actor_account_id, actor_email, ip, detail, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const selectAudit = db.prepare<[string, number], AuditEventRow>(
    'SELECT * FROM audit_events WHERE project_id = ? ORDER BY id DESC LIMIT ?',
  );

  const createAccountWithPassword = db.transaction(
    (input: {
      id: string;
      email: string;
      passwordHash: string;
      verified: boolean;
      operator: boolean;
      now: number;
    }): CreateAccountWithPasswordResult => {
      if (selectByEmail.get(input.email)) return { kind: 'email-taken' };
      const row = insertAccount.get(
        input.id,
        input.email,
        bit(input.verified),
        input.passwordHash,
        bit(input.operator),
        input.now,
      )!;
      return { kind: 'created', account: dashboardAccountFromRow(row) };
    },
  );

  const resumeSession = db.transaction((hash: string, now: number, idleExpiresAt: number) => {
    const row = selectSession.get(hash);
    if (!row) return null;
    if (row.idle_expires_at <= now || row.absolute_expires_at <= now) {
      deleteSession.run(hash);
      return null;
    }
    const account = selectById.get(row.account_id);
    if (!account) return null;
    const idle = Math.min(idleExpiresAt, row.absolute_expires_at);
    extendSession.run(idle, now, hash);
    return {
      session: {
        accountId: row.account_id,
        createdAt: row.created_at,
        idleExpiresAt: idle,
        absoluteExpiresAt: row.absolute_expires_at,
      },
      account: dashboardAccountFromRow(account),
    };
  });

  const setAccountEmail = db.transaction((id: string, email: string): 'changed' | 'email-taken' | 'not-found' => {
    const holder = selectByEmail.get(email);
    if (holder) return holder.id === id ? 'changed' : 'email-taken';
    return updateEmail.run(email, id).changes > 0 ? 'changed' : 'not-found';
  });
  const deleteDashboardData = db.transaction((accountId: string, email: string) => {
    deleteSessions.run(accountId);
    deleteCodesOf.run(email);
    deleteAuditOf.run(accountId, accountId);
  });

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
    async findAccountByEmail(email) {
      const row = selectByEmail.get(email);
      return row ? dashboardAccountFromRow(row) : null;
    },
    async getDashboardAccount(id) {
      const row = selectById.get(id);
      return row ? dashboardAccountFromRow(row) : null;
    },
    async listOperatorIds() {
      return selectOperatorIds.all().map((row) => row.id);
    },
    async createAccountWithPassword(input) {
      return createAccountWithPassword.immediate(input);
    },
    async setAccountPassword({ id, passwordHash }) {
      return updatePassword.run(passwordHash, id).changes > 0;
    },
    async setAccountOperator({ id, operator }) {
      const row = updateOperator.get(bit(operator), id);
      return row ? dashboardAccountFromRow(row) : null;
    },
    async createSession({ hash, accountId, now, idleExpiresAt, absoluteExpiresAt, userAgent, ip }) {
      insertSession.run(hash, accountId, now, idleExpiresAt, absoluteExpiresAt, now, userAgent ?? null, ip ?? null);
    },
    async listAccountSessions({ accountId, now }) {
      return selectAccountSessions.all(accountId, now, now).map(
        (row): SessionSummary => ({
          ref: row.ref,
          createdAt: row.created_at,
          lastUsedAt: row.last_used_at,
          userAgent: row.user_agent,
          ip: row.ip,
        }),
      );
    },
    async deleteAccountSession({ accountId, ref }) {
      return deleteSessionByRef.run(accountId, ref).changes > 0;
    },
    async deleteOtherSessions({ accountId, keepHash }) {
      return deleteOtherSessions.run(accountId, keepHash).changes;
    },
    async setAccountEmail({ id, email }) {
      return setAccountEmail.immediate(id, email);
    },
    async deleteAccountDashboardData({ accountId, email }) {
      deleteDashboardData.immediate(accountId, email);
    },
    async resumeSession({ hash, now, idleExpiresAt }) {
      return resumeSession.immediate(hash, now, idleExpiresAt);
    },
    async deleteSession(hash) {
      deleteSession.run(hash);
    },
    async deleteAccountSessions(accountId) {
      deleteSessions.run(accountId);
    },
    async putEmailCode({ email, purpose, codeHash, now, expiresAt }) {
      upsertCode.run(email, purpose, codeHash, now, expiresAt);
    },
    async consumeEmailCode({ email, purpose, codeHash, now, maxAttempts }) {
      return consumeCode.immediate(email, purpose, codeHash, now, maxAttempts);
    },
    async hasEmailCode({ email, purpose, now }) {
      const row = selectCode.get(email, purpose);
      return row !== undefined && row.expires_at > now;
    },
    async appendAuditEvent(event: AuditEventRecord) {
      insertAudit.run(
        event.id,
        event.projectId,
        event.action,
        event.actorAccountId,
        event.actorEmail,
        event.ip,
        event.detail,
        event.createdAt,
      );
    },
    async listAuditEvents({ projectId, limit }) {
      return selectAudit.all(projectId, limit).map((row) => ({
        id: row.id,
        projectId: row.project_id,
        action: row.action,
        actorAccountId: row.actor_account_id,
        actorEmail: row.actor_email,
        ip: row.ip,
        detail: row.detail,
        createdAt: row.created_at,
      }));
    },
  };
}
