import type {
  AuditAction,
  AuditEventRecord,
  AuditSource,
  ConsumeEmailCodeResult,
  CreateAccountWithPasswordResult,
  DashboardAccount,
  DashboardStore,
  EmailCodePurpose,
  PasskeyRecord,
  PendingSignInRecord,
  PurgedDashboardData,
  SessionSummary,
} from '@tidings/dashboard';
import type Database from 'better-sqlite3';
import { containsPattern } from './like.js';
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
  project_id: string | null;
  action: AuditAction;
  source: AuditSource;
  actor_account_id: string | null;
  actor_email: string | null;
  actor_name: string | null;
  ip: string | null;
  detail: string;
  reason: string | null;
  created_at: number;
}

interface InvitationRow {
  email: string;
  issued_by: string | null;
  created_at: number;
  expires_at: number;
}

interface PasskeyRow {
  credential_id: string;
  account_id: string;
  public_key: string;
  counter: number;
  transports: string;
  name: string;
  created_at: number;
  last_used_at: number | null;
}

function passkeyFromRow(row: PasskeyRow): PasskeyRecord {
  return {
    credentialId: row.credential_id,
    accountId: row.account_id,
    publicKey: row.public_key,
    counter: row.counter,
    transports: JSON.parse(row.transports) as string[],
    name: row.name,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

interface PendingSignInRow {
  account_id: string;
  next: string;
  created_at: number;
  expires_at: number;
}

function pendingFromRow(row: PendingSignInRow): PendingSignInRecord {
  return { accountId: row.account_id, next: row.next, createdAt: row.created_at, expiresAt: row.expires_at };
}

/** The dashboard's port on the store's database: sign-in, sessions, codes, audit log. */
export function dashboardOperations(db: Database.Database): DashboardStore {
  const selectByEmail = db.prepare<[string], DashboardAccountRow>(
    'SELECT * FROM accounts WHERE email = ? ORDER BY created_at, id LIMIT 1',
  );
  const selectById = db.prepare<[string], DashboardAccountRow>('SELECT * FROM accounts WHERE id = ?');
  const selectOperatorIds = db.prepare<[], { id: string }>('SELECT id FROM accounts WHERE operator = 1 ORDER BY id');
  // SQLite's LIKE ignores the case of ASCII letters. The operators' page only: no index.
  const ACCOUNT_MATCHES = `(@pattern IS NULL OR email LIKE @pattern ESCAPE '\\' OR id LIKE @pattern ESCAPE '\\')`;
  const selectMatchingAccounts = db.prepare<
    { pattern: string | null; limit: number; offset: number },
    DashboardAccountRow
  >(`SELECT * FROM accounts WHERE ${ACCOUNT_MATCHES} ORDER BY created_at, id LIMIT @limit OFFSET @offset`);
  const countMatchingAccounts = db
    .prepare<{ pattern: string | null }, number>(`SELECT count(*) FROM accounts WHERE ${ACCOUNT_MATCHES}`)
    .pluck();
  const searchAccounts = db.transaction((query: string | null, offset: number, limit: number) => {
    const pattern = containsPattern(query);
    return {
      accounts: selectMatchingAccounts.all({ pattern, limit, offset }).map(dashboardAccountFromRow),
      total: countMatchingAccounts.get({ pattern })!,
    };
  });
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
  const insertAudit = db.prepare<[AuditEventRecord]>(
    `INSERT INTO audit_events
       (id, project_id, action, source, actor_account_id, actor_email, actor_name, ip, detail, reason, created_at)
     VALUES (@id, @projectId, @action, @source, @actorAccountId, @actorEmail, @actorName, @ip, @detail, @reason, @createdAt)`,
  );
  const selectAudit = db.prepare<{ project: string | null; actor: string | null; limit: number }, AuditEventRow>(
    `SELECT * FROM audit_events
      WHERE (@project IS NULL OR project_id = @project)
        AND (@actor IS NULL OR coalesce(actor_email, actor_name) = @actor)
      ORDER BY id DESC LIMIT @limit`,
  );

  const insertPasskey = db.prepare<[string, string, string, number, string, string, number, number | null]>(
    `INSERT INTO passkeys (credential_id, account_id, public_key, counter, transports, name, created_at, last_used_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const selectPasskeys = db.prepare<[string], PasskeyRow>(
    'SELECT * FROM passkeys WHERE account_id = ? ORDER BY created_at, credential_id',
  );
  const selectPasskey = db.prepare<[string], PasskeyRow>('SELECT * FROM passkeys WHERE credential_id = ?');
  const updatePasskeyUse = db.prepare<[number, number, string]>(
    'UPDATE passkeys SET counter = ?, last_used_at = ? WHERE credential_id = ?',
  );
  const deletePasskey = db.prepare<[string, string]>('DELETE FROM passkeys WHERE account_id = ? AND credential_id = ?');
  const deleteRecoveryCodes = db.prepare<[string]>('DELETE FROM recovery_codes WHERE account_id = ?');
  const insertRecoveryCode = db.prepare<[string, string, number]>(
    'INSERT OR IGNORE INTO recovery_codes (account_id, hash, created_at) VALUES (?, ?, ?)',
  );
  const deleteRecoveryCode = db.prepare<[string, string]>(
    'DELETE FROM recovery_codes WHERE account_id = ? AND hash = ?',
  );
  const countRecoveryCodes = db.prepare<[string], { count: number }>(
    'SELECT count(*) AS count FROM recovery_codes WHERE account_id = ?',
  );
  const insertPending = db.prepare<[string, string, string, number, number]>(
    'INSERT INTO pending_sign_ins (hash, account_id, next, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
  );
  const selectPending = db.prepare<[string], PendingSignInRow>('SELECT * FROM pending_sign_ins WHERE hash = ?');
  const deletePending = db.prepare<[string]>('DELETE FROM pending_sign_ins WHERE hash = ?');
  const upsertChallenge = db.prepare<[string, string, number]>(
    `INSERT INTO webauthn_challenges (key, challenge, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET challenge = excluded.challenge, expires_at = excluded.expires_at`,
  );
  const selectChallenge = db.prepare<[string], { challenge: string; expires_at: number }>(
    'SELECT challenge, expires_at FROM webauthn_challenges WHERE key = ?',
  );
  const deleteChallenge = db.prepare<[string]>('DELETE FROM webauthn_challenges WHERE key = ?');

  const replaceRecoveryCodes = db.transaction((accountId: string, hashes: string[], now: number) => {
    deleteRecoveryCodes.run(accountId);
    for (const hash of hashes) insertRecoveryCode.run(accountId, hash, now);
  });
  const takePending = db.transaction((hash: string, now: number): PendingSignInRecord | null => {
    const row = selectPending.get(hash);
    if (!row) return null;
    deletePending.run(hash);
    return row.expires_at > now ? pendingFromRow(row) : null;
  });
  const purgeSessions = db.prepare<[number, number]>(
    'DELETE FROM sessions WHERE idle_expires_at <= ? OR absolute_expires_at <= ?',
  );
  const purgeCodes = db.prepare<[number]>('DELETE FROM email_codes WHERE expires_at <= ?');
  const purgePending = db.prepare<[number]>('DELETE FROM pending_sign_ins WHERE expires_at <= ?');
  const purgeChallenges = db.prepare<[number]>('DELETE FROM webauthn_challenges WHERE expires_at <= ?');
  const purgeExpired = db.transaction(
    (now: number): PurgedDashboardData => ({
      sessions: purgeSessions.run(now, now).changes,
      codes: purgeCodes.run(now).changes,
      pendingSignIns: purgePending.run(now).changes,
      challenges: purgeChallenges.run(now).changes,
    }),
  );
  const takeChallenge = db.transaction((key: string, now: number): string | null => {
    const row = selectChallenge.get(key);
    if (!row) return null;
    deleteChallenge.run(key);
    return row.expires_at > now ? row.challenge : null;
  });

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
    async searchAccounts({ query, offset, limit }) {
      return searchAccounts(query, offset, limit);
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
    async addPasskey(passkey) {
      insertPasskey.run(
        passkey.credentialId,
        passkey.accountId,
        passkey.publicKey,
        passkey.counter,
        JSON.stringify(passkey.transports),
        passkey.name,
        passkey.createdAt,
        passkey.lastUsedAt,
      );
    },
    async listPasskeys(accountId) {
      return selectPasskeys.all(accountId).map(passkeyFromRow);
    },
    async findPasskey(credentialId) {
      const row = selectPasskey.get(credentialId);
      return row ? passkeyFromRow(row) : null;
    },
    async usePasskey({ credentialId, counter, now }) {
      updatePasskeyUse.run(counter, now, credentialId);
    },
    async deletePasskey({ accountId, credentialId }) {
      return deletePasskey.run(accountId, credentialId).changes > 0;
    },
    async replaceRecoveryCodes({ accountId, hashes, now }) {
      replaceRecoveryCodes.immediate(accountId, hashes, now);
    },
    async useRecoveryCode({ accountId, hash }) {
      return deleteRecoveryCode.run(accountId, hash).changes > 0;
    },
    async countRecoveryCodes(accountId) {
      return countRecoveryCodes.get(accountId)?.count ?? 0;
    },
    async createPendingSignIn({ hash, accountId, next, createdAt, expiresAt }) {
      insertPending.run(hash, accountId, next, createdAt, expiresAt);
    },
    async findPendingSignIn({ hash, now }) {
      const row = selectPending.get(hash);
      return row && row.expires_at > now ? pendingFromRow(row) : null;
    },
    async takePendingSignIn({ hash, now }) {
      return takePending.immediate(hash, now);
    },
    async putWebAuthnChallenge({ key, challenge, expiresAt }) {
      upsertChallenge.run(key, challenge, expiresAt);
    },
    async takeWebAuthnChallenge({ key, now }) {
      return takeChallenge.immediate(key, now);
    },
    async purgeExpired({ now }) {
      return purgeExpired.immediate(now);
    },
    async appendAuditEvent(event: AuditEventRecord) {
      insertAudit.run({
        id: event.id,
        projectId: event.projectId,
        action: event.action,
        source: event.source,
        actorAccountId: event.actorAccountId,
        actorEmail: event.actorEmail,
        actorName: event.actorName,
        ip: event.ip,
        detail: event.detail,
        reason: event.reason,
        createdAt: event.createdAt,
      });
    },
    async listAuditEvents({ projectId, actor, limit }) {
      return selectAudit.all({ project: projectId ?? null, actor: actor ?? null, limit }).map((row) => ({
        id: row.id,
        projectId: row.project_id,
        action: row.action,
        source: row.source,
        actorAccountId: row.actor_account_id,
        actorEmail: row.actor_email,
        actorName: row.actor_name,
        ip: row.ip,
        detail: row.detail,
        reason: row.reason,
        createdAt: row.created_at,
      }));
    },
  };
}
