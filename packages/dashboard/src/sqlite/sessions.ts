import type { SessionStore, SessionSummary } from '../store.js';
import { type Connection, type DashboardAccountRow, dashboardAccountFromRow } from './rows.js';

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

/** Sessions, found by the SHA-256 of their id. */
export function sessionOperations(db: Connection): SessionStore {
  const selectAccount = db.prepare<[string], DashboardAccountRow>('SELECT * FROM accounts WHERE id = ?');
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
  const selectSession = db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE hash = ?');
  const extendSession = db.prepare<[number, number, string]>(
    'UPDATE sessions SET idle_expires_at = ?, last_used_at = ? WHERE hash = ?',
  );
  const deleteSession = db.prepare<[string]>('DELETE FROM sessions WHERE hash = ?');
  const deleteSessions = db.prepare<[string]>('DELETE FROM sessions WHERE account_id = ?');

  const resumeSession = db.transaction((hash: string, now: number, idleExpiresAt: number) => {
    const row = selectSession.get(hash);
    if (!row) return null;
    if (row.idle_expires_at <= now || row.absolute_expires_at <= now) {
      deleteSession.run(hash);
      return null;
    }
    const account = selectAccount.get(row.account_id);
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

  return {
    async createSession({ hash, accountId, now, idleExpiresAt, absoluteExpiresAt, userAgent, ip }) {
      insertSession.run(hash, accountId, now, idleExpiresAt, absoluteExpiresAt, now, userAgent ?? null, ip ?? null);
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
  };
}
