import type { PendingSignInRecord, PendingSignInStore } from '../store.js';
import type { Connection } from './rows.js';

interface PendingSignInRow {
  account_id: string;
  next: string;
  created_at: number;
  expires_at: number;
}

function pendingFromRow(row: PendingSignInRow): PendingSignInRecord {
  return { accountId: row.account_id, next: row.next, createdAt: row.created_at, expiresAt: row.expires_at };
}

/** Pending sign-ins and WebAuthn challenges: each taken (deleted) by its first use. */
export function pendingSignInOperations(db: Connection): PendingSignInStore {
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

  const takePending = db.transaction((hash: string, now: number): PendingSignInRecord | null => {
    const row = selectPending.get(hash);
    if (!row) return null;
    deletePending.run(hash);
    return row.expires_at > now ? pendingFromRow(row) : null;
  });
  const takeChallenge = db.transaction((key: string, now: number): string | null => {
    const row = selectChallenge.get(key);
    if (!row) return null;
    deleteChallenge.run(key);
    return row.expires_at > now ? row.challenge : null;
  });

  return {
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
  };
}
